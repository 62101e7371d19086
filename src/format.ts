/** "24 h", "1 h 30 min", "5 min", "42 s": how long a token lives, for log lines and the summary. */
export function formatDuration(seconds: number): string {
  const s = Math.max(0, Math.round(seconds))
  if (s < 60) return `${s} s`
  const minutes = Math.floor(s / 60)
  if (minutes < 60) return `${minutes} min`
  const hours = Math.floor(minutes / 60)
  const rest = minutes % 60
  return rest ? `${hours} h ${rest} min` : `${hours} h`
}

/**
 * ISO 8601 UTC to the second: 2026-11-23T06:00:00Z. From the UTC fields rather than toISOString(),
 * whose first call costs a step 1 ms; a year outside 0000-9999 is left to it.
 */
export function isoSeconds(ms: number): string {
  const date = new Date(Math.floor(ms / 1000) * 1000)
  const year = date.getUTCFullYear()
  if (!(year >= 0 && year <= 9999)) return date.toISOString().replace('.000Z', 'Z')
  const two = (n: number): string => (n < 10 ? `0${n}` : `${n}`)
  return (
    `${String(year).padStart(4, '0')}-${two(date.getUTCMonth() + 1)}-${two(date.getUTCDate())}` +
    `T${two(date.getUTCHours())}:${two(date.getUTCMinutes())}:${two(date.getUTCSeconds())}Z`
  )
}

/** "512 B", "1.5 KiB", "100 MiB", "2 GiB". */
export function formatBytes(bytes: number): string {
  if (bytes >= 1024 * 1024 * 1024) return `${+(bytes / 1024 / 1024 / 1024).toFixed(1)} GiB`
  if (bytes >= 1024 * 1024) return `${+(bytes / 1024 / 1024).toFixed(1)} MiB`
  if (bytes >= 1024) return `${+(bytes / 1024).toFixed(1)} KiB`
  return `${bytes} B`
}

/** 10240 -> "10,240". Not toLocaleString: initialising Intl costs start-up time every run. */
export function formatCount(n: number): string {
  return String(n).replace(/\B(?=(\d{3})+(?!\d))/g, ',')
}

// C0 and C1 controls and DEL; the line and paragraph separators; bidirectional marks, overrides
// and isolates, which can make a name read as another.
// eslint-disable-next-line no-control-regex
const NOT_FOR_A_LOG_LINE = /[\u0000-\u001f\u007f-\u009f\u2028\u2029\u200e\u200f\u061c\u202a-\u202e\u2066-\u2069]/g

/**
 * Text that came from a file or another job (a file or folder name, a field of a line), made safe
 * to log: without control characters. A line break in it would start a new log line, where
 * `::stop-commands::` or `::add-mask::` is a workflow command; core.info writes text as it is.
 */
export function logSafe(text: string): string {
  return text.replace(NOT_FOR_A_LOG_LINE, '')
}

/** logSafe() in double quotes: where a name from a file begins and ends, as a log line shows it. */
export function quoted(text: string): string {
  return `"${logSafe(text)}"`
}

/** "51 ms", "4.2 s", "42 s", "3 min 5 s", "1 h 2 min": how long something took, never "0 s". */
export function formatElapsed(ms: number): string {
  const t = Math.max(0, ms)
  if (t < 1000) return `${Math.round(t)} ms`
  if (t < 9950) return `${+(t / 1000).toFixed(1)} s`
  const s = Math.round(t / 1000)
  if (s < 60) return `${s} s`
  if (s < 3600) return s % 60 ? `${Math.floor(s / 60)} min ${s % 60} s` : `${s / 60} min`
  return formatDuration(s)
}
