import { formatCount, quoted } from '../format.js'
import { Refusal, RefusalReason } from './evidence.js'

const MAX_NAMED = 5
const WORDS: Readonly<Record<RefusalReason, string>> = {
  unsigned: 'unsigned by the run’s record key',
  key: 'signed with another record key',
  altered: 'altered after they were written',
  run: 'of another workflow run',
  attempt: 'of a later run attempt than this one',
  snapshot: 'of another snapshot'
}

/** The results files, and lines, a reader did not count as evidence: said in one message. */
export class Refusals {
  private readonly files: { readonly file: string; readonly refusal: Refusal }[] = []
  private lineCount = 0

  readonly file = (file: string, refusal: Refusal): void => {
    this.files.push({ file, refusal })
  }

  readonly lines = (_file: string, count: number): void => {
    this.lineCount += count
  }

  get count(): number {
    return this.files.length
  }

  /** Whether any refusal says the record was tampered with: unsigned, another key, altered, a later attempt. */
  get forged(): boolean {
    return this.files.some(f => f.refusal.reason !== 'run' && f.refusal.reason !== 'snapshot') || this.lineCount > 0
  }

  /**
   * "2 results files (call-resume-from) were not counted: a.jsonl (altered after …), …; their
   * targets are called again", or undefined when nothing was refused.
   */
  message(input: string, consequence: string): string | undefined {
    if (this.files.length === 0 && this.lineCount === 0) return undefined
    const parts: string[] = []
    if (this.files.length > 0) {
      const named = this.files
        .slice(0, MAX_NAMED)
        .map(
          ({ file, refusal }) =>
            `${quoted(file)} (${refusal.fromLine > 1 ? `from line ${refusal.fromLine}: ` : ''}${refusal.detail})`
        )
      const more = this.files.length - MAX_NAMED
      const kinds = [...new Set(this.files.map(f => WORDS[f.refusal.reason]))].join('; ')
      parts.push(
        `${formatCount(this.files.length)} results file${this.files.length === 1 ? ' was' : 's were'} not counted (${input}), being ${kinds}: ` +
          `${named.join(', ')}${more > 0 ? ` and ${formatCount(more)} more` : ''}`
      )
    }
    if (this.lineCount > 0) {
      parts.push(
        `${formatCount(this.lineCount)} result line${this.lineCount === 1 ? ' was' : 's were'} not counted: another call, attempt or shard than their file's header, or a later attempt`
      )
    }
    return `${parts.join('; ')}; ${consequence}.`
  }
}
