import { endWhenIdle, run } from './main.js'

endWhenIdle()
void run()
