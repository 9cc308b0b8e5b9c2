/**
 * Utility functions for the project.
 */

export function greet(name: string): string {
  return `Hello, ${name}!`;
}
