/** Security on: authentication, ACL, namespace isolation across protocols, audit, throttling. */
package io.junction.conformance.security;
