// The ```swift blocks of README.md, of docs/*.md and of QuakeStore's DocC articles, each compiled as it is
// written: snippets.py (run by run.sh) writes them into Generated/ (not committed), one function
// per block, behind `#sourceLocation` so that errors name the markdown file and line. A block is
// the body of `func ...(store: Store) throws` (`async throws` when it awaits at its top level),
// without the store when it has imports of its own; an HTML comment before a block gives it more
// context visibly (see snippets.py). Nothing calls them.
