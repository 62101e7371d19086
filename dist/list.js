// The list door (scripts/bundle.js writes it from list/action.yml).
globalThis.m2mDoor = {"name":"list","inputs":{"client-id":"","client-secret":"","client-auth":"post","private-key":"","private-key-id":"","auth-url":"","token-url":"","token-request-format":"json","audience":"","scope":"","oidc-audience":"api://AzureADTokenExchange","base-url":"","targets-where":"","shard-size":"100","max-pages":"1000"},"outputs":["targets-file","targets-digest","shards","sealed-token","record-key","counts"]}
await import('./index.js')
