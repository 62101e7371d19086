import { endWhenDone } from './ending.js'
import { run } from './main.js'

endWhenDone(run())
