// The entry ncc bundles into dist/index.js: here, so that ncc reads build/tsconfig.json.
import '../src/index.js'
