/**
 * Security on Remoting, used only when the broker runs with {@code security.enabled=true}: every request is verified
 * on its own against the signature RocketMQ's {@code AclClientRPCHook} adds ({@link io.junction.remoting.security.
 * SignedContent}, {@link io.junction.remoting.security.AccessGuard}), then authorized by the one explicit table of
 * what each request code touches ({@link io.junction.remoting.security.RequestPermissions}). No decision is
 * remembered per connection: a channel that once sent a good request earns nothing for the next one, and a pull or
 * POP waiting while its user's rules change is decided again at once. A connection only remembers which users it
 * acted as, to hear of their changes ({@link io.junction.remoting.security.ConnectionUsers}). RocketMQ's ACL 2.0 user and
 * ACL admin codes map onto the broker's user directory ({@link io.junction.remoting.security.UserAdminProcessor}).
 */
package io.junction.remoting.security;
