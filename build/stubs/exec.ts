// Stands in for @actions/exec in the bundle: @actions/core imports it only for
// platform.getDetails(), which this action never calls.
export async function getExecOutput(): Promise<never> {
  throw new Error('@actions/exec is not bundled with this action')
}
