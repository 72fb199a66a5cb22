/** Turns the {@code security.*} configuration into the access control every front-end asks, and its admin API. */
package io.junction.broker.security;
