// Users, their ACL rules and the namespaces' quotas, read from the admin API (changes: junction admin, or the API).
import {api, whileShown} from './api.js';

export function security() {
  return {
    users: [],
    quotas: {},
    off: false,
    error: '',
    stop: null,

    init() {
      this.stop = whileShown('security', 10000, () => this.refresh());
    },

    destroy() {
      this.stop && this.stop();
    },

    async refresh() {
      try {
        this.users = await api('GET', '/admin/users');
        this.quotas = await api('GET', '/admin/quotas');
        this.off = false;
        this.error = '';
      } catch (e) {
        // 409: the admin API's answer when security is off.
        this.off = e.status === 409;
        this.error = this.off ? '' : e.message;
      }
    },
  };
}
