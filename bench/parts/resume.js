export async function resume() { return [] }
