// Topics: a page of topics with counts and rates, one topic's queues, create and delete.
import {api, whileShown} from './api.js';
import {formatting} from './format.js';

export function topics() {
  return {
    ...formatting,
    rows: [],
    total: 0,
    offset: 0,
    limit: 50,
    q: '',
    system: false,
    error: '',
    detail: null,
    confirming: '',
    created: '',
    form: {name: '', queues: 4, type: 'NORMAL', trace: false},
    stop: null,

    init() {
      this.stop = whileShown('topics', 2000, () => this.refresh());
      this.$watch('q', () => this.refresh());
      this.$watch('system', () => this.refresh());
      this.$watch('offset', () => this.refresh());
    },

    destroy() {
      this.stop && this.stop();
    },

    pageText() {
      return this.total === 0 ? 'no topics'
        : (this.offset + 1) + '–' + Math.min(this.total, this.offset + this.limit) + ' of ' + this.total;
    },

    async refresh() {
      const params = new URLSearchParams({offset: this.offset, limit: this.limit, q: this.q, system: this.system});
      try {
        const page = await api('GET', '/admin/topics?' + params);
        this.rows = page.topics;
        this.total = page.total;
        this.error = '';
        if (this.detail) {
          await this.open(this.detail.name);
        }
      } catch (e) {
        this.error = e.message;
      }
    },

    async open(name) {
      try {
        this.detail = await api('GET', '/admin/topics/' + encodeURIComponent(name));
      } catch (e) {
        this.detail = null;
        this.error = e.message;
      }
    },

    async create() {
      const attributes = this.form.trace ? {'trace.enabled': 'true'} : {};
      try {
        const t = await api('POST', '/admin/topics',
          {name: this.form.name.trim(), queues: this.form.queues, type: this.form.type, attributes});
        this.created = 'Created ' + t.name + ' with ' + t.queueCount + ' queue(s).';
        this.form.name = '';
        this.error = '';
        await this.refresh();
      } catch (e) {
        this.created = '';
        this.error = e.message;
      }
    },

    /** The first click asks, the second deletes. */
    async remove(name) {
      if (this.confirming !== name) {
        this.confirming = name;
        return;
      }
      this.confirming = '';
      try {
        await api('DELETE', '/admin/topics/' + encodeURIComponent(name));
        if (this.detail && this.detail.name === name) {
          this.detail = null;
        }
        await this.refresh();
      } catch (e) {
        this.error = e.message;
      }
    },
  };
}
