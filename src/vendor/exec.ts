export async function getExecOutput(): Promise<never> {
  throw new Error('@actions/exec is not bundled with this action')
}
