// Consumer groups: a page of groups, one group's lag per queue and clients, offset reset by time, dead-letter redrive.
import {api} from './api.js';
import {pagedList} from './paged.js';
import {epochOf, formatting} from './format.js';

export function groups() {
  return {
    ...formatting,
    ...pagedList({page: 'groups', path: '/admin/groups', key: 'groups', noun: 'groups', every: 3000,
      filters: {q: ''}}),
    detail: null,
    resetForm: {topic: '', time: ''},
    resetResult: '',
    redriveResult: '',

    /** An open group follows the list. */
    async loaded() {
      if (this.detail) {
        await this.load(this.detail.name);
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
