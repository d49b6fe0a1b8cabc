/** The JSON body of a response, typed loosely for assertions (fetch's json() is `unknown`). */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- tests assert on shapes they do not declare
export async function readJson(res: Response | Promise<Response>): Promise<any> {
  return (await res).json();
}
