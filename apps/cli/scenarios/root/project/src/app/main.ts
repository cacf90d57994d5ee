export const main = (): string => "hello"
