// The entry of npm run bench's floor, bundled with the same stand-ins as the action.
import '../bench/floor.js'
