export async function cancel() { return [] }
