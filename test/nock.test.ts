// Every unit test that mocks HTTP with nock runs from this one file, so one nock instance serves
// them all: with one file each, a worker's later file was at times answered by an earlier file's
// interceptors (ERR_NOCK_NO_MATCH), as they all share the worker's http module.
import { useNock } from './nock/nock.js'
import './nock/in-charge.js' // first: checks that this file's nock copy is the only one
import './nock/http.js'
import './nock/idp.js'
import './nock/targets.js'
import './nock/token.js'
import './nock/main.js'

useNock()
