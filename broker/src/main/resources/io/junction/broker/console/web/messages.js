// Message search by id, key or time range; one message's properties, body preview and trace.
import {api} from './api.js';
import {epochOf, formatting} from './format.js';

const EVENT_NAMES = {Pub: 'sent and stored', SubBefore: 'delivered', SubAfter: 'consumed'};

export function messages() {
  return {
    ...formatting,
    form: {topic: '', mode: 'id', value: '', begin: '', end: ''},
    rows: null,
    selected: null,
    events: null,
    error: '',

    eventName(type) {
      return EVENT_NAMES[type] || type;
    },

    async search() {
      const params = new URLSearchParams({topic: this.form.topic.trim()});
      if (this.form.mode === 'id') {
        params.set('id', this.form.value.trim());
      } else {
        if (this.form.mode === 'key') {
          params.set('key', this.form.value.trim());
        }
        params.set('begin', epochOf(this.form.begin) ?? 0);
        params.set('end', epochOf(this.form.end) ?? Date.now());
        params.set('max', 50);
      }
      this.selected = null;
      this.events = null;
      try {
        const r = await api('GET', '/admin/messages?' + params);
        this.rows = r.messages;
        this.error = '';
        if (this.rows.length === 1) {
          this.open(this.rows[0]);
        }
      } catch (e) {
        this.rows = null;
        this.error = e.message;
      }
    },

    open(m) {
      this.selected = m;
      this.events = null;
    },

    async trace() {
      const params = new URLSearchParams({topic: this.selected.topic, id: this.selected.id || ''});
      try {
        const r = await api('GET', '/admin/messages/trace?' + params);
        this.events = r.events;
        this.error = '';
      } catch (e) {
        this.error = e.message;
      }
    },
  };
}
