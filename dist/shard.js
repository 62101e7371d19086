// The shard door (scripts/bundle.js writes it from shard/action.yml).
globalThis.m2mDoor = {"name":"shard","inputs":{"sealed-token":"","client-secret":"","private-key":"","targets-from":"","targets-digest":"","shard":"","call":"","call-body":"","call-accept":"","call-concurrency":"4","call-max-failures":"100","call-waves":"","call-canary":"","call-resume-from":"","call-dry-run":"false","plan-digest":"","plan-from":""},"outputs":["results-file","counts","plan-digest"]}
await import('./index.js')
