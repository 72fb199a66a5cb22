/** The medium below the log: segment files (write, force, read view) behind an interface so faults can be injected. */
package io.junction.core.io;
