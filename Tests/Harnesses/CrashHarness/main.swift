// Placeholder until the crash-safety harness lands: exits at once.
