// Users, their ACL rules, bearer tokens and the namespaces' quotas, read and changed through the admin security API
// (GET/PUT/DELETE /admin/users..., GET/PUT /admin/quotas...). Changes are PUT or DELETE with JSON bodies: methods a
// page of another site cannot send without a CORS preflight, which the broker never grants. Issuing a token is a
// POST: another site could make a browser send one, but could not read the answer, so it would learn no token.
//
// A token just issued is shown once and kept only in this component's memory (never in storage): a reload, or
// opening another user's tokens, forgets it, as the broker does (it keeps a digest only).
import {api, whileShown} from './api.js';
import {formatting} from './format.js';

const ACTIONS = ['PUB', 'SUB', 'CREATE', 'UPDATE', 'DELETE', 'GET', 'LIST'];

function path(name) {
  return '/admin/users/' + encodeURIComponent(name);
}

export function security() {
  return {
    ...formatting,
    users: [],
    quotas: {},
    off: false,
    error: '',
    done: '',
    stop: null,
    actions: ACTIONS,
    confirming: '',
    userForm: {name: '', namespace: 'default', password: '', super: false, enabled: true},
    ruleForm: {user: '', resource: 'Topic:*', actions: ['PUB'], decision: 'ALLOW'},
    quotaForm: {namespace: 'default', messagesPerSecond: 0, bytesPerSecond: 0, maxConnections: 0},
    tokenUser: '',
    tokenLifetime: '',
    tokens: [],
    issued: null,
    copied: '',

    init() {
      this.stop = whileShown('security', 10000, () => this.refresh());
    },

    destroy() {
      this.stop && this.stop();
    },

    async refresh() {
      try {
        this.users = await api('GET', '/admin/users');
        this.quotas = await api('GET', '/admin/quotas');
        this.off = false;
        this.error = '';
        if (!this.ruleForm.user && this.users.length) {
          this.ruleForm.user = this.users[0].name;
        }
        if (this.tokenUser) {
          await this.loadTokens();
        }
      } catch (e) {
        // 409: the admin API's answer when security is off.
        this.off = e.status === 409;
        this.error = this.off ? '' : e.message;
      }
    },

    /** Runs a change, says what it did, and reloads the lists. */
    async change(what, call) {
      try {
        await call();
        this.done = what;
        this.error = '';
      } catch (e) {
        this.done = '';
        this.error = e.message;
      }
      await this.refresh();
    },

    /** Creates a user, or updates one (an empty password leaves the old one). */
    async saveUser() {
      const f = this.userForm;
      const body = {namespace: f.namespace, super: f.super, enabled: f.enabled};
      if (f.password) {
        body.password = f.password;
      }
      await this.change('Saved user ' + f.name + '.', () => api('PUT', path(f.name), body));
      this.userForm.password = '';
    },

    edit(u) {
      this.userForm = {name: u.name, namespace: u.namespace, password: '', super: u.super, enabled: u.enabled};
      this.ruleForm.user = u.name;
    },

    /** Deletes a user on the second click. */
    async removeUser(name) {
      if (this.confirming !== name) {
        this.confirming = name;
        return;
      }
      this.confirming = '';
      await this.change('Deleted user ' + name + '.', () => api('DELETE', path(name)));
    },

    rulesOf(name) {
      const u = this.users.find(x => x.name === name);
      return u ? u.acl.map(r => ({resource: r.resource, actions: r.actions, decision: r.decision})) : [];
    },

    /** Grants (or denies, by the decision) a rule: the user's rules with this one added. */
    async addRule() {
      const f = this.ruleForm;
      const rules = this.rulesOf(f.user).concat([{resource: f.resource, actions: f.actions, decision: f.decision}]);
      await this.change('Rule added for ' + f.user + '.', () => api('PUT', path(f.user) + '/acl', {rules}));
    },

    /** Revokes one rule: the user's rules without it. */
    async removeRule(name, index) {
      const rules = this.rulesOf(name).filter((r, i) => i !== index);
      await this.change('Rule removed from ' + name + '.', () => api('PUT', path(name) + '/acl', {rules}));
    },

    /** Shows the tokens of {@code name} (ids, issue and expiry times: the broker keeps nothing more). */
    async showTokens(name) {
      if (this.tokenUser !== name) {
        this.issued = null;
        this.copied = '';
      }
      this.tokenUser = name;
      await this.loadTokens();
    },

    async loadTokens() {
      try {
        this.tokens = (await api('GET', path(this.tokenUser) + '/tokens')).tokens;
      } catch (e) {
        this.tokens = [];
        this.tokenUser = e.status === 404 ? '' : this.tokenUser; // the user was deleted meanwhile
        this.error = e.status === 404 ? '' : e.message;
      }
    },

    /** Issues a token to the user whose tokens are shown, and shows it this once. */
    async issueToken() {
      const name = this.tokenUser;
      this.copied = '';
      await this.change('Issued a token to ' + name + ': copy it now, it is not shown again.', async () => {
        const body = this.tokenLifetime === '' ? {} : {ttlSeconds: Number(this.tokenLifetime)};
        const got = await api('POST', path(name) + '/tokens', body);
        this.issued = {user: got.user, id: got.id, token: got.token};
      });
    },

    async copyToken() {
      try {
        await navigator.clipboard.writeText(this.issued.token);
        this.copied = 'Copied.';
      } catch (e) {
        // No clipboard (a page not served over HTTPS or localhost): select the text for the user to copy.
        const field = document.getElementById('issued-token');
        field.focus();
        field.select();
        this.copied = 'Selected: copy it with Ctrl+C.';
      }
    },

    /** Revokes one token on the second click. */
    async revokeToken(id) {
      if (this.confirming !== 'token ' + id) {
        this.confirming = 'token ' + id;
        return;
      }
      this.confirming = '';
      const name = this.tokenUser;
      await this.change('Revoked token ' + id + ' of ' + name + '.', async () => {
        await api('DELETE', path(name) + '/tokens/' + encodeURIComponent(id));
        if (this.issued && this.issued.id === id) {
          this.issued = null;
        }
      });
    },

    editQuota(ns, q) {
      this.quotaForm = {namespace: ns, messagesPerSecond: q.messagesPerSecond, bytesPerSecond: q.bytesPerSecond,
        maxConnections: q.maxConnections};
    },

    async saveQuota() {
      const f = this.quotaForm;
      await this.change('Quota of ' + f.namespace + ' set.', () => api('PUT',
        '/admin/quotas/' + encodeURIComponent(f.namespace), {messagesPerSecond: Number(f.messagesPerSecond),
          bytesPerSecond: Number(f.bytesPerSecond), maxConnections: Number(f.maxConnections)}));
    },
  };
}
