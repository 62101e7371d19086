import type { Transport } from '../http/client.js'

/** What a token request carries to prove the client. */
export interface Proof {
  readonly headers: Readonly<Record<string, string>>
  /** Body fields, in order; made fresh for every attempt (an assertion may be used only once). */
  readonly fields: (nowMs: number) => Record<string, string>
}

/**
 * How the client proves who it is (RFC 6749 §2.3, RFC 7523 §2.2), one module per method behind
 * this interface: the only home of the client's secrets.
 */
export interface ClientAuth {
  /** The client-auth input's value. */
  readonly method: string
  /** What the token request to `tokenEndpoint` carries for this client; `transport` for a method that fetches its proof. */
  proof(clientId: string, tokenEndpoint: URL, transport?: Transport): Promise<Proof>
  /** The secret a sealed token's key is derived from; undefined when the method holds none. */
  keyMaterial(): Buffer | undefined
  /** The method's settings that are not secret, bound into a sealed token: { method, … }. */
  readonly bound: Readonly<Record<string, string | undefined>>
  /** The inputs that prove the client, named in the advice on a 401. */
  readonly proofInputs: string
}

/** The client and the token endpoint, as the inputs give them. */
export interface Credentials {
  readonly clientId: string
  readonly auth: ClientAuth
  /** Sent when set; required with the JSON body (the Auth0 contract). */
  readonly audience?: string
  readonly scope?: string
  readonly tokenUrl: URL
  /** Which input gave the token URL, for advice: token-url, or auth-url with /oauth/token appended. */
  readonly tokenUrlFrom?: 'auth-url' | 'token-url'
  /** How the token request body is encoded, whatever the client authentication. */
  readonly bodyFormat: 'json' | 'form'
}

/** A URL as messages show it: no query, which may hold a key (…/token?subscription-key=…). */
export function originAndPath(url: URL): string {
  return `${url.origin}${url.pathname}`
}
