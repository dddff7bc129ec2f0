import { type ClassValue, clsx } from "clsx";
import { twMerge } from "tailwind-merge";

/** Joins class names; a later Tailwind class wins over a conflicting earlier one (`w-48` over `w-full`). */
export function cn(...values: ClassValue[]): string {
  return twMerge(clsx(values));
}
