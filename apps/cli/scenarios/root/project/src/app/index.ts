import { main } from "./main.ts"

console.log(main())
