/**
 * Who is asking and what they may do: the questions every protocol front-end puts before it touches the core.
 *
 * <p>A front-end turns its protocol's credentials into {@link io.junction.tenancy.Credentials}, asks the
 * {@link io.junction.tenancy.AccessControl} to authenticate them once per connection, and then asks it to authorize
 * each operation on a topic, group or the cluster. The resulting {@link io.junction.tenancy.Principal} carries the
 * tenant's namespace, so the same topic name in two namespaces never meets.
 *
 * <p>Rules change while clients are connected: the {@linkplain io.junction.tenancy.AccessControl#policyVersion policy
 * version} moves with every change, so a front-end remembers allowed decisions only until it moves
 * ({@link io.junction.tenancy.Grants}), and what a principal holds open (a consumer link, a connection) follows its
 * changes and its deletion through a {@link io.junction.tenancy.PolicyWatcher}.
 *
 * <p>Until users, ACL policies and quotas land, the broker runs with {@link io.junction.tenancy.OpenPolicy}: everyone is
 * anonymous in the default namespace and everything is allowed. Front-ends still ask, so switching the policy needs no
 * front-end change.
 */
package io.junction.tenancy;
