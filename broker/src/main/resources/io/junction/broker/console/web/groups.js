// Consumer groups: a page of groups, one group's lag per queue and clients, offset reset by time, dead-letter redrive.
import {api, whileShown} from './api.js';
import {epochOf, formatting} from './format.js';

export function groups() {
  return {
    ...formatting,
    rows: [],
    total: 0,
    offset: 0,
    limit: 50,
    q: '',
    error: '',
    detail: null,
    resetForm: {topic: '', time: ''},
    resetResult: '',
    redriveResult: '',
    stop: null,

    init() {
      this.stop = whileShown('groups', 3000, () => this.refresh());
      this.$watch('q', () => this.refresh());
      this.$watch('offset', () => this.refresh());
    },

    destroy() {
      this.stop && this.stop();
    },

    pageText() {
      return this.total === 0 ? 'no groups'
        : (this.offset + 1) + '–' + Math.min(this.total, this.offset + this.limit) + ' of ' + this.total;
    },

    async refresh() {
      const params = new URLSearchParams({offset: this.offset, limit: this.limit, q: this.q});
      try {
        const page = await api('GET', '/admin/groups?' + params);
        this.rows = page.groups;
        this.total = page.total;
        this.error = '';
        if (this.detail) {
          await this.load(this.detail.name);
        }
      } catch (e) {
        this.error = e.message;
      }
    },

    async open(name) {
      this.resetResult = '';
      this.redriveResult = '';
      await this.load(name);
      if (this.detail && !this.resetForm.topic && this.detail.topics.length) {
        this.resetForm.topic = this.detail.topics[0].topic;
      }
    },

    async load(name) {
      try {
        this.detail = await api('GET', '/admin/groups/' + encodeURIComponent(name));
      } catch (e) {
        this.detail = null;
        this.error = e.message;
      }
    },

    async reset() {
      try {
        const r = await api('POST', '/admin/groups/' + encodeURIComponent(this.detail.name) + '/reset',
          {topic: this.resetForm.topic, timestamp: epochOf(this.resetForm.time)});
        this.resetResult = 'Offsets now ' + Object.entries(r.offsets).map(([q, o]) => 'queue ' + q + ': ' + o)
          .join(', ') + '.';
        await this.load(this.detail.name);
      } catch (e) {
        this.resetResult = '';
        this.error = e.message;
      }
    },

    async redrive() {
      try {
        const r = await api('POST', '/admin/groups/' + encodeURIComponent(this.detail.name) + '/redrive',
          {max: 1000});
        this.redriveResult = 'Re-drove ' + r.redriven + ' message(s).';
        await this.load(this.detail.name);
      } catch (e) {
        this.redriveResult = '';
        this.error = e.message;
      }
    },
  };
}
