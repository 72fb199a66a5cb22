// A page's paged list (topics, groups, connections): its rows, total and offset, fetched while the page is shown and
// again whenever the offset or one of its filters changes. A page spreads it into its component and may define
// loaded(page) for what else a fresh page needs (an open detail reloaded, the protocols seen so far).
import {api, whileShown} from './api.js';

/**
 * @param page    the page's name in the navigation (the list is fetched only while it is shown)
 * @param path    the API path of the list, answering {total, <key>: [...]}
 * @param key     the answer's field with the rows
 * @param noun    what the rows are, for "no <noun>"
 * @param every   milliseconds between fetches
 * @param filters the query parameters besides the paging, with their first values; the page binds them
 */
export function pagedList({page, path, key, noun, every, filters}) {
  const names = Object.keys(filters);
  return {
    ...filters,
    rows: [],
    total: 0,
    offset: 0,
    limit: 50,
    error: '',
    stop: null,

    init() {
      this.stop = whileShown(page, every, () => this.refresh());
      for (const name of ['offset', ...names]) {
        this.$watch(name, () => this.refresh());
      }
    },

    destroy() {
      this.stop && this.stop();
    },

    pageText() {
      return this.total === 0 ? 'no ' + noun
        : (this.offset + 1) + '–' + Math.min(this.total, this.offset + this.limit) + ' of ' + this.total;
    },

    async refresh() {
      const params = new URLSearchParams({offset: this.offset, limit: this.limit});
      for (const name of names) {
        params.set(name, this[name]);
      }
      try {
        const got = await api('GET', path + '?' + params);
        this.rows = got[key];
        this.total = got.total;
        this.error = '';
        await this.loaded(got);
      } catch (e) {
        this.error = e.message;
      }
    },

    async loaded() {
    },
  };
}
