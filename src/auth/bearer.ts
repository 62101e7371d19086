import { formatDuration, isoSeconds } from '../format.js'
import { Token } from './token.js'

/** How close to its expiry a token is renewed before it is sent. */
export const RENEW_MARGIN_MS = 60_000

/**
 * The token the listing and the calls send, kept valid for as long as the work lasts: renewed
 * before it comes within a minute of its expiry (when the step holds credentials to renew it
 * with), and once after a 401 on a token that came from sealed-token (revoked or rotated since).
 * Concurrent callers share one renewal.
 */
export class Bearer {
  private renewing: Promise<Token> | undefined
  private recovered = false

  constructor(
    private token: Token,
    private readonly renew: (() => Promise<Token>) | undefined,
    private readonly warn: (message: string) => void,
    private readonly now: () => number = Date.now
  ) {}

  /** The token now in use. */
  get latest(): Token {
    return this.token
  }

  /** The token to send now: a fresh one first when this one is about to expire. */
  async current(): Promise<string> {
    const { expiresAtMs } = this.token
    if (expiresAtMs === undefined || expiresAtMs - this.now() > RENEW_MARGIN_MS) return this.token.accessToken
    if (!this.renew) {
      if (expiresAtMs > this.now()) return this.token.accessToken
      throw new Error(
        `The token expired at ${isoSeconds(expiresAtMs)} while the step ran, and the token input cannot be renewed: ` +
          'give client credentials instead (a fresh token is then exchanged as needed), or a token that lasts the job.'
      )
    }
    return (await this.refresh()).accessToken
  }

  /**
   * After the service answered 401 to `refused`: the token to retry with once, or undefined when
   * there is none (a token that came from an exchange or input is not exchanged again for a 401).
   */
  async recover(refused: string): Promise<string | undefined> {
    if (refused !== this.token.accessToken) return this.token.accessToken // renewed meanwhile
    if (!this.renew || this.token.source !== 'sealed' || this.recovered) return undefined
    this.recovered = true
    const left =
      this.token.expiresAtMs === undefined
        ? ''
        : ` (it had ${formatDuration((this.token.expiresAtMs - this.now()) / 1000)} left)`
    this.warn(
      `The service refused the sealed token (HTTP 401)${left}: it may have been revoked or rotated. Exchanging client credentials once for a fresh token.`
    )
    return (await this.refresh()).accessToken
  }

  private refresh(): Promise<Token> {
    this.renewing ??= this.renew!().then(
      token => {
        this.token = token
        this.renewing = undefined
        return token
      },
      err => {
        this.renewing = undefined
        throw err
      }
    )
    return this.renewing
  }
}
