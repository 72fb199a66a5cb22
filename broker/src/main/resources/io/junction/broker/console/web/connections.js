// Connected clients of every front-end that lists them, filtered and paged, with disconnect.
import {api} from './api.js';
import {pagedList} from './paged.js';
import {formatting} from './format.js';

export function connections() {
  return {
    ...formatting,
    ...pagedList({page: 'connections', path: '/admin/connections', key: 'connections', noun: 'connections',
      every: 3000, filters: {protocol: '', q: ''}}),
    protocols: [],
    confirming: null,

    /** The protocol choice offers every protocol seen so far. */
    async loaded(page) {
      for (const c of page.connections) {
        if (!this.protocols.includes(c.protocol)) {
          this.protocols.push(c.protocol);
        }
      }
    },

    /** The first click asks, the second disconnects. */
    async disconnect(c) {
      if (this.confirming !== c.id) {
        this.confirming = c.id;
        return;
      }
      this.confirming = null;
      try {
        await api('DELETE', '/admin/connections/' + c.id);
        await this.refresh();
      } catch (e) {
        this.error = e.message;
      }
    },
  };
}
