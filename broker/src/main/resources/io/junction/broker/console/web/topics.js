// Topics: a page of topics with counts and rates, one topic's queues, create and delete.
import {api} from './api.js';
import {pagedList} from './paged.js';
import {formatting} from './format.js';

export function topics() {
  return {
    ...formatting,
    ...pagedList({page: 'topics', path: '/admin/topics', key: 'topics', noun: 'topics', every: 2000,
      filters: {q: '', system: false}}),
    detail: null,
    confirming: '',
    created: '',
    form: {name: '', queues: 4, type: 'NORMAL', trace: false},

    /** An open topic follows the list. */
    async loaded() {
      if (this.detail) {
        await this.open(this.detail.name);
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
