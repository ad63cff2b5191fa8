/** An error the API answered with (`{"error": {"code", "message"}}`), or a transport failure. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
    this.name = new.target.name;
  }
}

/** The error a failed response carries; a body that is not the API's error shape gets a generic message. */
export async function apiErrorOf(response: Response): Promise<ApiError> {
  try {
    const body = (await response.json()) as { error?: { code?: unknown; message?: unknown } };
    if (typeof body.error?.code === 'string' && typeof body.error.message === 'string') {
      return new ApiError(response.status, body.error.code, body.error.message);
    }
  } catch {
    // not JSON (a proxy's error page, say): fall through to the generic message
  }
  return new ApiError(response.status, 'http_error', `The server answered ${response.status}. Please try again.`);
}

/** GET a JSON document; failures become ApiError, including a network that is down (status 0). */
export async function getJson<T>(url: string, headers: Record<string, string>, signal?: AbortSignal): Promise<T> {
  let response: Response;
  try {
    response = await fetch(url, { headers: { accept: 'application/json', ...headers }, signal });
  } catch (error) {
    if (signal?.aborted) throw error;
    throw new ApiError(0, 'network_error', 'The server could not be reached. Check the connection and try again.');
  }
  if (!response.ok) throw await apiErrorOf(response);
  try {
    return (await response.json()) as T;
  } catch {
    throw new ApiError(response.status, 'bad_response', 'The server sent a response that could not be read.');
  }
}
