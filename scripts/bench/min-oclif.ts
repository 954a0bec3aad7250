/**
 * Benchmark baseline "a minimal oclif command": loads `@oclif/core` and runs one command that prints a line,
 * the least start-up any oclif CLI pays (chatdoctor's `scan <one chat>` is compared with it).
 */
import {Command} from '@oclif/core'

class Hello extends Command {
  async run(): Promise<void> {
    this.log('hello')
  }
}

await Hello.run([], import.meta.url)
