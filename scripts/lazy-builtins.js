// Two things every step loaded as the bundle loaded, for code that most steps never reach
// (docs/performance.md, "Where the start-up's time goes"):
// - node:crypto, about 14 ms of CPU: a step that only lists hashes its file with @noble/hashes
//   (src/targets/digest.ts) and takes its random bytes from /dev/urandom (src/random.ts); the
//   routine, the sealed token, a private key and a large listing still use node:crypto. Its module
//   is made a stand-in that loads node:crypto the first time one of its members is read.
// - fs.promises, 3 ms: @actions/core's summary.js reads three of its functions as it loads; the
//   action writes its summary itself (src/main.ts), so core's are made to read them when called.
// - ncc's createRequire(import.meta.url), made again for each builtin the bundle requires (23 of
//   them, each resolving the bundle's path): made once, about 1.5 ms of a start-up's CPU.
// Each rewrite must match, once or more as stated, or the build fails: an ncc, terser or
// @actions/core that writes these differently is caught here, not in a slower start-up.

const LAZY = `let m2mRequire;function m2mLazyBuiltin(load){let m;const g=()=>m??=load();return new Proxy({},{get:(_,k)=>k==="__esModule"?void 0:g()[k],has:(_,k)=>k in g(),ownKeys:()=>Reflect.ownKeys(g()),getOwnPropertyDescriptor:(_,k)=>{const d=Reflect.getOwnPropertyDescriptor(g(),k);return d&&{...d,configurable:!0}}})}\n`

const CRYPTO = /\b([A-Za-z_$][\w$]*)\(import\.meta\.url\)\("((?:node:)?crypto)"\)/g
const REQUIRE = /\b([A-Za-z_$][\w$]*)\(import\.meta\.url\)\(/g
const CORE_SUMMARY = /const\{access:([\w$]+),appendFile:([\w$]+),writeFile:([\w$]+)\}=([\w$]+)\.promises/g

/**
 * The main chunk (index.js) with node:crypto loaded on first use, core's fs.promises on call, and
 * one require made for every builtin.
 */
export function lazyBuiltins(code) {
  const crypto = code.match(CRYPTO) ?? []
  if (crypto.length === 0) throw new Error('lazy-builtins: no require of node:crypto found in index.js')
  const summary = code.match(CORE_SUMMARY) ?? []
  if (summary.length !== 1)
    throw new Error(`lazy-builtins: @actions/core's fs.promises read found ${summary.length} times, not once`)
  const out = code
    .replace(CRYPTO, (_, req, id) => `m2mLazyBuiltin(()=>${req}(import.meta.url)("${id}"))`)
    .replace(
      CORE_SUMMARY,
      (_, access, append, write, fs) =>
        `const ${access}=(...a)=>${fs}.promises.access(...a),${append}=(...a)=>${fs}.promises.appendFile(...a),${write}=(...a)=>${fs}.promises.writeFile(...a)`
    )
    .replace(REQUIRE, (_, create) => `(m2mRequire??=${create}(import.meta.url))(`)
  return LAZY + out
}
