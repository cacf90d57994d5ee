/**
 * The words of the command tools in each locale: each tool's name and description (which say
 * what runs and where: the root folder, the network, the timeout, the output cap) and each
 * field's name and description. The tools are defined once (`CommandTool`), from these words.
 */

/** What the descriptions say about the sandbox. */
export interface Facts {
  readonly root: string
  readonly network: boolean
  readonly timeoutMs: number
  readonly maxOutputBytes: number
}

/** A field's name in a locale and what the model is told it is. */
export interface Field<F extends string> {
  readonly name: F
  readonly description: string
}

/** The words of the program tool, named `N`, with fields `P` (the program) and `A` (the arguments). */
export interface ProgramWords<N extends string, P extends string, A extends string> {
  readonly name: N
  readonly description: (facts: Facts) => string
  readonly program: Field<P>
  readonly args: Field<A>
}

/** The words of the shell tool, named `N`, with the field `L` (the line). */
export interface ShellWords<N extends string, L extends string> {
  readonly name: N
  readonly description: (facts: Facts) => string
  readonly line: Field<L>
}

/** The words of one locale. */
export interface Words<N extends string, P extends string, A extends string, S extends string, L extends string> {
  readonly program: ProgramWords<N, P, A>
  readonly shell: ShellWords<S, L>
}

/** A count with thousands separated by `separator`. */
export const grouped = (count: number, separator: string): string =>
  String(count).replace(/\B(?=(\d{3})+(?!\d))/g, separator)

/** Seconds of a number of milliseconds: `60`, `1.5` (English), `1,5` (Spanish). */
export const seconds = (ms: number, decimal: string): string =>
  String(Number((ms / 1000).toFixed(3))).replace(".", decimal)

const englishSandbox = (facts: Facts): string =>
  `in a sandbox over the root folder ${facts.root} (the working directory and the only place it can write; the rest of the system is read-only, and /tmp is private and starts empty).`

const englishLimits = (facts: Facts): string =>
  `${facts.network ? "It has network access." : "It has no network access."} It is stopped after ${seconds(facts.timeoutMs, ".")} s. The result shows the exit code, stdout and stderr (each cut after ${grouped(facts.maxOutputBytes, ",")} bytes); a non-zero exit code is an error.`

const spanishSandbox = (facts: Facts): string =>
  `en un entorno aislado sobre la carpeta raíz ${facts.root} (el directorio de trabajo y el único sitio donde puede escribir; el resto del sistema es de solo lectura, y /tmp es privado y empieza vacío).`

const spanishLimits = (facts: Facts): string =>
  `${facts.network ? "Tiene acceso a la red." : "No tiene acceso a la red."} Se detiene a los ${seconds(facts.timeoutMs, ",")} s. El resultado muestra el código de salida, stdout y stderr (cada uno cortado tras ${grouped(facts.maxOutputBytes, ".")} bytes); un código de salida distinto de cero es un error.`

/** English: `command {program, args?}`, `shell {line}`. */
export const english: Words<"command", "program", "args", "shell", "line"> = {
  program: {
    name: "command",
    description: (facts) =>
      `Runs a program with its arguments ${englishSandbox(facts)} No shell is involved: the arguments are passed as they are (no globs, pipes, redirections or variables). ${englishLimits(facts)}`,
    program: {
      name: "program",
      description: "The program to run: a name found on PATH (e.g. ls, git, python3) or a path"
    },
    args: { name: "args", description: 'The arguments, one per item, passed as they are (e.g. ["-la", "src"])' }
  },
  shell: {
    name: "shell",
    description: (facts) =>
      `Runs a shell command line with /bin/sh -c ${englishSandbox(facts)} Pipes, redirections, globs and variables work. ${englishLimits(facts)}`,
    line: { name: "line", description: "The shell command line, e.g. ls -la src | head" }
  }
}

/** Spanish: `comando {programa, argumentos?}`, `consola {línea}`. */
export const spanish: Words<"comando", "programa", "argumentos", "consola", "línea"> = {
  program: {
    name: "comando",
    description: (facts) =>
      `Ejecuta un programa con sus argumentos ${spanishSandbox(facts)} No pasa por una consola: los argumentos se pasan tal cual (sin comodines, tuberías, redirecciones ni variables). ${spanishLimits(facts)}`,
    program: {
      name: "programa",
      description: "El programa que se ejecuta: un nombre que esté en el PATH (p. ej. ls, git, python3) o una ruta"
    },
    args: {
      name: "argumentos",
      description: 'Los argumentos, uno por elemento, tal cual (p. ej. ["-la", "src"])'
    }
  },
  shell: {
    name: "consola",
    description: (facts) =>
      `Ejecuta una línea de órdenes con /bin/sh -c ${spanishSandbox(facts)} Funcionan las tuberías, las redirecciones, los comodines y las variables. ${spanishLimits(facts)}`,
    line: { name: "línea", description: "La línea de órdenes, p. ej. ls -la src | head" }
  }
}
