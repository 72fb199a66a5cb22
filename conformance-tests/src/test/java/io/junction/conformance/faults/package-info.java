/** Faults of the machine under the assembled broker: a disk that fills up and frees space again. */
package io.junction.conformance.faults;
