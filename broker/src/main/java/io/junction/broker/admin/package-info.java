/** The {@code admin} command line: a client of the broker's HTTP admin API. */
package io.junction.broker.admin;
