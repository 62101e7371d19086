import * as core from '@actions/core'
import { DEFAULT_OIDC_AUDIENCE } from '../auth/github-oidc.js'

/** The defaults action.yml declares; applied here too when a workflow passes an empty value. */
export const DEFAULTS: Readonly<Record<string, string>> = {
  'list-targets': 'true',
  'timeout-seconds': '30',
  'max-attempts': '6',
  'max-pages': '1000',
  'shard-size': '100',
  'seal-token': 'false',
  summary: 'true',
  'targets-output': 'true',
  'call-concurrency': '4',
  'call-idempotent': 'false',
  'call-dry-run': 'false',
  'call-max-failures': '100',
  'report-fail-on': 'failed,unknown,not-made,missing',
  'min-validity-seconds': '300',
  'token-request-format': 'json',
  'client-auth': 'post',
  'oidc-audience': DEFAULT_OIDC_AUDIENCE
}

export function read(name: string): string {
  return core.getInput(name) || DEFAULTS[name] || ''
}

export function integer(name: string, min: number, max: number): number {
  const value = read(name)
  if (!/^\d+$/.test(value) || Number(value) < min || Number(value) > max) {
    throw new Error(`Input ${name} must be a whole number from ${min} to ${max}, got "${value}"`)
  }
  return Number(value)
}

export function number(name: string, min: number, max: number): number {
  const value = read(name)
  if (!/^\d+(\.\d+)?$/.test(value) || Number(value) < min || Number(value) > max) {
    throw new Error(`Input ${name} must be a number from ${min} to ${max}, got "${value}"`)
  }
  return Number(value)
}

export function boolean(name: string): boolean {
  const value = read(name).toLowerCase()
  if (value !== 'true' && value !== 'false') {
    throw new Error(`Input ${name} must be true or false, got "${read(name)}"`)
  }
  return value === 'true'
}

export function choice(name: string, allowed: readonly string[]): string {
  const value = read(name).toLowerCase()
  if (!allowed.includes(value)) {
    throw new Error(`Input ${name} must be one of ${allowed.join(', ')}, got "${read(name)}"`)
  }
  return value
}

/** A URL input, always required: `what` says what it is for when it is missing. */
export function url(name: string, options: { allowQuery?: boolean; what?: string } = {}): URL {
  const value = core.getInput(name)
  if (!value) throw new Error(`Input required and not supplied: ${name}${options.what ? ` (${options.what})` : ''}`)
  let parsed: URL
  try {
    parsed = new URL(value)
  } catch {
    throw new Error(`Input ${name} is not a valid URL: give an absolute https:// URL`)
  }
  if (parsed.username || parsed.password) {
    throw new Error(`Input ${name} must not contain credentials (user:password@); pass them in their own inputs`)
  }
  if (parsed.protocol === 'http:' && !isLoopback(parsed.hostname)) {
    throw new Error(
      `Input ${name} must use https:// (plain http:// is accepted only for loopback hosts, for local testing)`
    )
  }
  if (parsed.protocol !== 'https:' && parsed.protocol !== 'http:') {
    throw new Error(`Input ${name} must be an https:// URL, not ${parsed.protocol}`)
  }
  if (parsed.hash || (parsed.search && !options.allowQuery)) {
    throw new Error(`Input ${name} must not have a ${parsed.hash ? '#fragment' : '?query'}: give the base address only`)
  }
  // An http(s) URL's empty path is / again.
  parsed.pathname = parsed.pathname.replace(/\/+$/, '')
  return parsed
}

export function isLoopback(hostname: string): boolean {
  const host = hostname.toLowerCase()
  return host === 'localhost' || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(host) || host === '[::1]'
}
