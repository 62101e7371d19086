// What a sealed token costs an attacker who read it from a log and guesses the client secret
// offline: guesses per second on one core, for a fast key derivation (HKDF-SHA256, what sealed tokens must not use)
// and of m2m2. tokens (scrypt, N = 2^15, r = 8, p = 1), each followed by the AES-256-GCM open that
// tells a right guess from a wrong one. The parameters are the ones src/auth/sealed.ts documents.
import { createDecipheriv, hkdfSync, randomBytes, scryptSync } from 'node:crypto'

const salt = randomBytes(16)
const iv = randomBytes(12)
const data = randomBytes(400)
const tag = randomBytes(16)

function open(key) {
  try {
    const d = createDecipheriv('aes-256-gcm', key, iv)
    d.setAuthTag(tag)
    Buffer.concat([d.update(data), d.final()])
    return true
  } catch {
    return false
  }
}

const kdfs = {
  'HKDF-SHA256': guess => Buffer.from(hkdfSync('sha256', guess, salt, 'm2m-targets-action sealed-token v1', 32)),
  'm2m2. scrypt N=2^15 r=8': guess => scryptSync(guess, salt, 32, { N: 2 ** 15, r: 8, p: 1, maxmem: 64 * 1024 * 1024 })
}

/** Guesses per second over about `ms` milliseconds. */
export function guessesPerSecond(name, ms = 1500) {
  const derive = kdfs[name]
  const started = process.hrtime.bigint()
  let n = 0
  while (Number(process.hrtime.bigint() - started) / 1e6 < ms) {
    open(derive(`Acme-Spring${n}!`))
    n++
  }
  return n / (Number(process.hrtime.bigint() - started) / 1e9)
}

export const KDF_NAMES = Object.keys(kdfs)

if (import.meta.url === `file://${process.argv[1]}`) {
  const [before, after] = KDF_NAMES.map(name => guessesPerSecond(name))
  console.log(`| key derivation | guesses/s on one core |\n| --- | ---: |`)
  console.log(`| ${KDF_NAMES[0]} | ${Math.round(before)} |\n| ${KDF_NAMES[1]} | ${after.toFixed(1)} |`)
  console.log(`\nEach guess costs ${Math.round(before / after)}x more (goal: >= 1000x).`)
  process.exitCode = before / after >= 1000 ? 0 : 1
}
