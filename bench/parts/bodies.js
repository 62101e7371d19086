export async function bodies() { return [] }
