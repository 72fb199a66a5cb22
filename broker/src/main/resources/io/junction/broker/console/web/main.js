// The console's entry point: registers the stores and page components, then starts Alpine.
import Alpine from '/console/lib/alpinejs/dist/module.esm.js';
import {session} from './api.js';
import {overview} from './overview.js';
import {topics} from './topics.js';
import {groups} from './groups.js';
import {messages} from './messages.js';
import {connections} from './connections.js';
import {security} from './security.js';

const pageOf = () => (location.hash || '#overview').slice(1) || 'overview';

Alpine.store('session', session);
Alpine.store('nav', {page: pageOf()});
window.addEventListener('hashchange', () => {
  Alpine.store('nav').page = pageOf();
});

Alpine.data('overview', overview);
Alpine.data('topics', topics);
Alpine.data('groups', groups);
Alpine.data('messages', messages);
Alpine.data('connections', connections);
Alpine.data('security', security);

window.Alpine = Alpine;
Alpine.start();
