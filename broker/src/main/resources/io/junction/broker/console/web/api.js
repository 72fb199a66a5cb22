// Calls to the broker's admin API. The credentials typed into the login form live in sessionStorage (gone when the
// tab closes) and go with every call; a 401 brings the login form back.
import Alpine from '/console/lib/alpinejs/dist/module.esm.js';

const AUTH_KEY = 'junction.console.auth';
const USER_KEY = 'junction.console.user';

export class ApiError extends Error {
  constructor(status, detail) {
    super(detail);
    this.status = status;
  }
}

export async function api(method, path, body) {
  // The marker header makes the broker leave the authentication challenge out of a 401, so the browser does not
  // pop its own login dialog over the page's form.
  const headers = {'X-Junction-Console': '1', 'Accept': 'application/json'};
  const auth = sessionStorage.getItem(AUTH_KEY);
  if (auth) {
    headers['Authorization'] = auth;
  }
  if (body !== undefined) {
    headers['Content-Type'] = 'application/json';
  }
  const response = await fetch(path, {method, headers, body: body === undefined ? undefined : JSON.stringify(body)});
  const type = response.headers.get('content-type') || '';
  const data = type.includes('json') ? await response.json() : await response.text();
  if (response.status === 401) {
    Alpine.store('session').needLogin = true;
  }
  if (!response.ok) {
    throw new ApiError(response.status, (data && data.detail) || String(data));
  }
  return data;
}

export const session = {
  needLogin: false,
  user: sessionStorage.getItem(USER_KEY) || '',
  error: '',

  async login(name, password) {
    sessionStorage.setItem(AUTH_KEY, 'Basic ' + btoa(unescape(encodeURIComponent(name + ':' + password))));
    try {
      await api('GET', '/admin/overview');
      sessionStorage.setItem(USER_KEY, name);
      this.user = name;
      this.error = '';
      this.needLogin = false;
      window.dispatchEvent(new CustomEvent('junction-login'));
    } catch (e) {
      sessionStorage.removeItem(AUTH_KEY);
      this.needLogin = true;
      this.error = e.status === 401 ? 'User name or password is wrong.'
        : e.status === 403 ? 'Only super users may use the console.' : e.message;
    }
  },

  logout() {
    sessionStorage.removeItem(AUTH_KEY);
    sessionStorage.removeItem(USER_KEY);
    this.user = '';
    this.needLogin = true;
  },
};

/**
 * Calls {@code refresh} now and every {@code millis} while {@code page} is shown and nobody needs to log in; again
 * at once when the page is opened or after a login. Returns a function that stops it.
 */
export function whileShown(page, millis, refresh) {
  const run = () => {
    if (Alpine.store('nav').page === page && !Alpine.store('session').needLogin) {
      refresh();
    }
  };
  const timer = setInterval(run, millis);
  window.addEventListener('hashchange', run);
  window.addEventListener('junction-login', run);
  run();
  return () => {
    clearInterval(timer);
    window.removeEventListener('hashchange', run);
    window.removeEventListener('junction-login', run);
  };
}
