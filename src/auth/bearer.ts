import { formatDuration, isoSeconds } from '../format.js'
import { Token } from './token.js'

/** How close to its expiry a token is renewed before it is sent, unless it lives less than twice that. */
export const RENEW_MARGIN_MS = 60_000
/** The least time a token is sent before it is renewed, however short it lives: bounds the exchanges. */
export const MIN_TOKEN_USE_MS = 1_000

/**
 * The token the listing and the calls send, kept valid for as long as the work lasts: renewed
 * before it comes within a minute of its expiry, or within half its life when it lives less than
 * two minutes (when the step holds credentials to renew it with), and once after a 401 on a token
 * that came from sealed-token (revoked or rotated since). Concurrent callers share one renewal.
 */
export class Bearer {
  private renewing: Promise<Token> | undefined
  private recovered = false
  private token!: Token
  private receivedAtMs = 0
  private marginMs = RENEW_MARGIN_MS
  private warnedShortLife = false

  constructor(
    token: Token,
    private readonly renew: (() => Promise<Token>) | undefined,
    private readonly warn: (message: string) => void,
    private readonly now: () => number = Date.now
  ) {
    this.adopt(token)
    this.receivedAtMs = -Infinity // the token it starts with may be renewed at once
  }

  /** The token now in use. */
  get latest(): Token {
    return this.token
  }

  /** The token to send: at once while it is fresh, else a promise of a fresh one (a renewal). */
  current(): string | Promise<string> {
    const { expiresAtMs } = this.token
    const now = this.now()
    if (expiresAtMs === undefined || expiresAtMs - now > this.marginMs) return this.token.accessToken
    if (this.renew && now - this.receivedAtMs < MIN_TOKEN_USE_MS) return this.token.accessToken
    if (!this.renew) {
      if (expiresAtMs > this.now()) return this.token.accessToken
      throw new Error(
        `The token expired at ${isoSeconds(expiresAtMs)} while the step ran, and the token input cannot be renewed: ` +
          'give client credentials instead (a fresh token is then exchanged as needed), or a token that lasts the job.'
      )
    }
    return this.refresh().then(token => token.accessToken)
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
    return this.refresh().then(token => token.accessToken)
  }

  private refresh(): Promise<Token> {
    this.renewing ??= this.renew!().then(
      token => {
        this.adopt(token)
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

  /** Takes a token into use, with the margin its life allows. */
  private adopt(token: Token): void {
    this.token = token
    this.receivedAtMs = this.now()
    if (token.expiresAtMs === undefined) return
    // Its life as the identity provider stated it (a sealed token may have little of it left), else
    // what is left of it now.
    const leftMs = token.expiresAtMs - this.receivedAtMs
    const lifeMs = Math.max(0, token.expiresInSeconds === undefined ? leftMs : token.expiresInSeconds * 1000)
    this.marginMs = Math.min(RENEW_MARGIN_MS, lifeMs / 2)
    if (lifeMs <= RENEW_MARGIN_MS && this.renew && token.source === 'exchange' && !this.warnedShortLife) {
      this.warnedShortLife = true
      this.warn(
        `The identity provider issued a token that lasts ${formatDuration(lifeMs / 1000)}, within the minute before ` +
          'expiry at which tokens are renewed: it is renewed at half its life instead, so long work exchanges ' +
          'credentials often. Ask the identity provider for a longer token lifetime for this client.'
      )
    }
  }
}
