export const tables = ["users", "orders"] as const;
