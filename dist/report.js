// The report door (scripts/bundle.js writes it from report/action.yml).
globalThis.m2mDoor = {"name":"report","inputs":{"report-from":"","targets-from":"","targets-digest":"","targets-where":"","record-key":"","call":"","call-body":"","call-accept":"","base-url":"","report-fail-on":"failed,unknown,not-made,missing"},"outputs":["counts","shards-to-rerun","report-file"]}
await import('./index.js')
