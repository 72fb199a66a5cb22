// Overview: message rates per protocol (chart and table), connections, disk, cluster state.
import uPlot from '/console/lib/uplot/dist/uPlot.esm.js';
import {api, whileShown} from './api.js';
import {formatting} from './format.js';

const COLOURS = ['#2563eb', '#16a34a', '#d97706', '#9333ea', '#dc2626', '#0891b2', '#4b5563'];

export function overview() {
  return {
    ...formatting,
    data: null,
    error: '',
    chart: null,
    chartKey: '',
    stop: null,

    init() {
      this.stop = whileShown('overview', 2000, () => this.refresh());
    },

    destroy() {
      this.stop && this.stop();
      this.chart && this.chart.destroy();
    },

    async refresh() {
      try {
        this.data = await api('GET', '/admin/overview');
        this.error = '';
        this.$nextTick(() => this.draw());
      } catch (e) {
        this.error = e.message;
      }
    },

    totalIn() {
      return this.data.protocols.reduce((s, p) => s + p.inRate, 0);
    },

    totalOut() {
      return this.data.protocols.reduce((s, p) => s + p.outRate, 0);
    },

    totalConnections() {
      return this.data.protocols.reduce((s, p) => s + p.connections, 0);
    },

    /** One line per protocol's incoming rate, and one for everything handed out; rebuilt when protocols change. */
    draw() {
      const el = this.$refs.chart;
      if (!el) {
        return;
      }
      const h = this.data.history;
      const protocols = Object.keys(h.in);
      const x = h.times.map(t => t / 1000);
      const out = x.map((_, i) => Object.values(h.out).reduce((s, points) => s + (points[i] || 0), 0));
      const series = [x, ...protocols.map(p => h.in[p]), out];
      const key = protocols.join(',');
      if (!this.chart || this.chartKey !== key || !el.contains(this.chart.root)) {
        this.chart && this.chart.destroy();
        this.chartKey = key;
        this.chart = new uPlot({
          width: Math.max(320, el.clientWidth || 800),
          height: 240,
          scales: {y: {range: (u, min, max) => [0, Math.max(1, max)]}},
          series: [
            {},
            ...protocols.map((p, i) => ({label: p + ' in/s', stroke: COLOURS[i % COLOURS.length], width: 2})),
            {label: 'out/s (all)', stroke: '#111827', dash: [6, 4], width: 2},
          ],
          axes: [{}, {label: 'messages/s'}],
        }, series, el);
      } else {
        this.chart.setData(series);
      }
    },
  };
}
