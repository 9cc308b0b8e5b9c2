"""Running eval cases against targets."""
