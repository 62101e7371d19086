import { endWhenDone, run } from './main.js'

endWhenDone(run())
