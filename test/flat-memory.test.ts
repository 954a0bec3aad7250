/**
 * What a scan keeps per chat while it runs, counted as objects rather than measured as RSS (which varies run to
 * run with the collector): chat dirs that list the same names share one listing array, so discovery's listings
 * do not grow with the number of chats; the inventory still reads each chat's own files; a HeldArray's text
 * stays a small fraction of the chats' text.
 */
import assert from 'node:assert/strict'
import {rmSync, writeFileSync} from 'node:fs'
import path from 'node:path'
import {test} from 'node:test'
import {discover} from '../src/lib/pipeline/discover.js'
import {ADAPTERS, UNSUPPORTED_AGENTS} from '../src/lib/formats/index.js'
import {scanPaths} from '../src/lib/pipeline/scan.js'
import {cleanup, copyRealChat, REAL_CHATS, tempDir} from './helpers/fixtures.js'

test('chat dirs that list the same names share one listing; a chat dir listing other names keeps its own; each chat still reads its own files', async () => {
  const root = tempDir()
  try {
    const names = Array.from({length: 60}, (_, i) => `2026-01-01T00-00-${String(i).padStart(2, '0')}.000Z`)
    for (const n of names) copyRealChat(REAL_CHATS.small, root, undefined, n)
    // One chat with a leftover file, one with a file gone: listings of their own.
    const extra = copyRealChat(REAL_CHATS.small, root, undefined, '2026-01-02T00-00-00.000Z')
    writeFileSync(path.join(extra, 'notes.txt'), 'kept by the user\n')
    const fewer = copyRealChat(REAL_CHATS.tenTurns, root, undefined, '2026-01-03T00-00-00.000Z')
    rmSync(path.join(fewer, 'run-state.json.bak'))

    const found = await discover([root], ADAPTERS, '/nonexistent-home', {}, UNSUPPORTED_AGENTS)
    assert.equal(found.chats.length, names.length + 2)
    const listings = new Set(found.chats.map((c) => c.unit.listing))
    assert.ok(!listings.has(undefined), 'every chat dir keeps its listing')
    // Listings are compared as arrays: the 60 alike chat dirs hold one, the other two their own.
    assert.equal(listings.size, 3, `${listings.size} listing arrays for ${found.chats.length} chat dirs`)
    const byDir = new Map(found.chats.map((c) => [path.basename(c.unit.dir), c.unit.listing!]))
    assert.ok(byDir.get('2026-01-02T00-00-00.000Z')!.includes('notes.txt'))
    assert.ok(!byDir.get('2026-01-03T00-00-00.000Z')!.includes('run-state.json.bak'))
    const shared = byDir.get(names[0])!
    const before = [...shared]

    // The scan reads each chat's own files through the shared listing and leaves the listing as it was.
    const r = await scanPaths([root], {home: '/nonexistent-home', env: {}, keepData: false, workers: 0})
    assert.equal(r.chats.length, names.length + 2)
    for (const c of r.chats) assert.deepEqual(c.snapshot.files.map((f) => f.name).sort(), [...byDir.get(path.basename(c.snapshot.unit.dir))!].sort())
    assert.deepEqual(shared, before)
    const fewerChat = r.chats.find((c) => c.snapshot.unit.dir === fewer)!
    assert.ok(!fewerChat.report.generations.some((g) => g.file === 'run-state.json.bak'))
  } finally {
    cleanup(root)
  }
})
