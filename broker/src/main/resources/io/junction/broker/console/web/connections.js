// Connected clients (the front-ends that list theirs: MQTT, AMQP), filtered and paged, with disconnect.
import {api, whileShown} from './api.js';
import {formatting} from './format.js';

export function connections() {
  return {
    ...formatting,
    rows: [],
    total: 0,
    offset: 0,
    limit: 50,
    protocol: '',
    protocols: [],
    q: '',
    error: '',
    confirming: null,
    stop: null,

    init() {
      this.stop = whileShown('connections', 3000, () => this.refresh());
      this.$watch('q', () => this.refresh());
      this.$watch('protocol', () => this.refresh());
      this.$watch('offset', () => this.refresh());
    },

    destroy() {
      this.stop && this.stop();
    },

    pageText() {
      return this.total === 0 ? 'no connections'
        : (this.offset + 1) + '–' + Math.min(this.total, this.offset + this.limit) + ' of ' + this.total;
    },

    async refresh() {
      const params = new URLSearchParams({offset: this.offset, limit: this.limit, protocol: this.protocol, q: this.q});
      try {
        const page = await api('GET', '/admin/connections?' + params);
        this.rows = page.connections;
        this.total = page.total;
        for (const c of this.rows) {
          if (!this.protocols.includes(c.protocol)) {
            this.protocols.push(c.protocol);
          }
        }
        this.error = '';
      } catch (e) {
        this.error = e.message;
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
