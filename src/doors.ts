/**
 * The action has doors, one per job of a fan-out, as actions/cache has restore/ and save/: the root
 * action.yml (everything, as it always was), list/, shard/ and report/. Each is an action.yml whose
 * runs.main is a stub (scripts/bundle.js) that names its door and what its action.yml declares,
 * then loads the one bundle. A door reads only the inputs it declares: any other given to it fails
 * the step before any request, with the declared name closest to it.
 */
export type DoorName = 'root' | 'list' | 'shard' | 'report'

export interface Door {
  readonly name: DoorName
  /** Declared inputs, with their defaults ('' for none). */
  readonly inputs: Readonly<Record<string, string>>
  readonly outputs: readonly string[]
}

const DOOR_NAMES: readonly DoorName[] = ['root', 'list', 'shard', 'report']
const FILES: Readonly<Record<DoorName, string>> = {
  root: 'action.yml',
  list: 'list/action.yml',
  shard: 'shard/action.yml',
  report: 'report/action.yml'
}

/** The door this process runs as, from its stub; undefined when dist/index.js is run directly. */
export function currentDoor(declared: unknown = (globalThis as { m2mDoor?: unknown }).m2mDoor): Door | undefined {
  if (!declared || typeof declared !== 'object') return undefined
  const { name, inputs, outputs } = declared as Record<string, unknown>
  if (!DOOR_NAMES.includes(name as DoorName) || !inputs || typeof inputs !== 'object' || !Array.isArray(outputs)) {
    return undefined
  }
  return { name: name as DoorName, inputs: inputs as Record<string, string>, outputs: outputs as string[] }
}

/** The input a runner's INPUT_ variable stands for, as the workflow wrote it (in lower case). */
function inputName(variable: string): string {
  return variable.slice('INPUT_'.length).toLowerCase()
}

/** How the runner names an input's variable: spaces as _, in upper case. */
function variableOf(input: string): string {
  return `INPUT_${input.replace(/ /g, '_').toUpperCase()}`
}

/**
 * Throws before anything else when the step was given an input its door does not declare, naming
 * each (at most five) and the declared input it most likely meant.
 */
export function checkGivenInputs(door: Door, env: NodeJS.ProcessEnv = process.env): void {
  const declared = Object.keys(door.inputs)
  const known = new Set(declared.map(variableOf))
  const unknown = Object.keys(env)
    .filter(v => v.startsWith('INPUT_') && !known.has(v))
    .map(inputName)
    .sort()
  if (unknown.length === 0) return
  const where = FILES[door.name]
  const named = (given: string): string => {
    const meant = closest(given, declared)
    return meant ? `${given} (did you mean ${meant}?)` : given
  }
  if (unknown.length === 1) {
    const meant = closest(unknown[0], declared)
    throw new Error(
      `Input ${unknown[0]} is not an input of this action (${where})${meant ? `: did you mean ${meant}?` : '.'} ` +
        "Correct its name in the step's with:, or remove it."
    )
  }
  const more = unknown.length > 5 ? ` and ${unknown.length - 5} more` : ''
  throw new Error(
    `Inputs ${unknown.slice(0, 5).map(named).join(', ')}${more} are not inputs of this action (${where}). ` +
      "Correct their names in the step's with:, or remove them."
  )
}

/**
 * The declared input a mistyped name most likely meant: the same but for _ and -, or within two
 * edits (a third of the name for long ones); undefined when none is that close.
 */
export function closest(given: string, declared: readonly string[]): string | undefined {
  const plain = (name: string): string => name.toLowerCase().replace(/_/g, '-')
  const exact = declared.find(name => plain(name) === plain(given))
  if (exact) return exact
  let best: { name: string; distance: number } | undefined
  for (const name of declared) {
    const distance = editDistance(plain(given), plain(name))
    if (!best || distance < best.distance) best = { name, distance }
  }
  const allowed = Math.max(2, Math.floor(given.length / 3))
  return best && best.distance <= allowed ? best.name : undefined
}

/** Levenshtein distance, by rows. */
function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, i) => i)
  for (let i = 1; i <= a.length; i++) {
    const row = [i]
    for (let j = 1; j <= b.length; j++) {
      row.push(Math.min(previous[j] + 1, row[j - 1] + 1, previous[j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1)))
    }
    previous = row
  }
  return previous[b.length]
}

/**
 * The inputs a step was given that its mode does not use, other than at their defaults: a word of
 * warning names each and the mode, so that a mistake is not silently ignored.
 */
export function givenButUnused(
  names: readonly string[],
  defaults: Readonly<Record<string, string>>,
  env: NodeJS.ProcessEnv = process.env
): string[] {
  return names.filter(name => {
    const value = env[variableOf(name)]
    return value !== undefined && value !== '' && value !== (defaults[name] ?? '')
  })
}
