"""The words that tell a request for words from a request for action, for the route decision
(planner.decision): a question about what something is or whether to do it, advice asked, a piece
of writing about a file rather than to one, code to show, the web without an address."""

from __future__ import annotations

import re

from planner.text import whole

# Advice asked, whatever file it names: "someone emailed me invoice.zip, should I open it?".
ADVICE = whole(
    r"should i|should we|is it (?:safe|normal|risky|ok|okay|dangerous|bad|wise|true)|pros and cons|pro e contro|"
    r"e (?:normale|rischioso|pericoloso|sicuro)|meglio|is it better|better to|worth it"
)
# A file that only a piece of writing is about: "a poem about a file called x.zip".
IMAGINED_FILE = whole(
    r"(?:story|poem|song|joke|limerick|haiku|tale|fable|rhyme|ode|sonnet|rap|jingle|verses?|"
    r"storia|storiella|poesia|poesiola|canzone|canzoncina|barzelletta|filastrocca|racconto|favola|rima|"
    r"sonetto|strofa|versi)\b.{0,30}\b(?:about|on|of|su|sul|sulla|sullo|sui|sugli|sulle|di)\b.{0,30}\b"
    r"(?:files?|folders?|documents?|cartell[ae]|document[oi]|directory|downloads?|desktop|workspace|archives?|archivi|"
    r"pages?|pagine|sheets?|fogli|images?|immagini|photos?|foto|scripts?)"
)
# Where a piece of writing takes its facts from: "using the details in notes/sara.md".
SOURCED = whole(
    r"(?:using|based on|drawing on|from the (?:details|info|information|notes|facts) in|"
    r"with the (?:details|info) (?:in|from)|"
    r"basandoti su|usando|in base a|partendo da|sulla base di|ispirandoti a|prendendo spunto da)"
    r"(?: (?:the|my|i|le|il|la|gli|lo|details|info|dettagli|appunti|notes|data|dati|in|di|del|della|nel|nella|from))*"
    r" \S*[./]\S+"
)
WEB = whole(r"on the web|the web for|sul web|in rete|online|su internet|on the internet|on wikipedia|su wikipedia")
# A question about what something is, not about the user's copy of it: "what is a CSV file?".
DEFINITION = whole(
    r"isn't it\s*\??$|non e vero\s*\??$|che differenza|differenza c'e tra|chiedo solo|just asking|"
    r"what'?s wrong with|whats wrong with|cosa c'e che non va|che errore c'e|any (?:habits|tips|advice|ideas)|"
    r"come mi (?:organizzo|devo organizzare)|^come \w+o\b|\bmeglio\b.{0,40}\bo\b.{0,30}\?$|"
    r"(?:what(?:'s| is)|whats) the (?:cron )?(?:syntax|sintassi|formula|regex)|"
    r"what is an?|what's an?|whats an?|what are|what does|explain|how does|how do|why do|why does|difference between|"
    r"cos'e|cos e|cosa e|che cos'e|che cosa e|cosa sono|spiega|spiegami|come funziona|come funzionano|differenza tra|"
    r"a cosa serve|what is the purpose|what.s the purpose|what is .* used for|what does .* do|cosa fa|che cosa fa|"
    r"how to|how do i|how do you|how can i|come si|come posso|come faccio|"
    r"(?:a|the) (?:good|best|better) way to|how should i|tips (?:for|on)|"
    r"il modo migliore|come dovrei|consigli (?:su|per)|"
    # What a word means, what would happen, what the user is advised: not an action on their files.
    r"cosa vuol dire|che vuol dire|cosa significa|che significa|what does .{1,40} mean|what do .{1,30} mean|"
    r"what happens if|what would happen if|cosa succede se|che succede se|cosa succederebbe se|"
    r"(?:che|quale|what|which) estension[ei]|what (?:file )?extensions?|is it (?:really )?worth|serve davvero|"
    r"ha senso|how would you|what would you|which is (?:faster|better|best|quicker|safer)|e meglio|conviene|"
    r"is it better|(?:what(?:'s| is)|whats) the (?:keyboard )?(?:shortcut|command|best way|easiest way)|"
    r"consigli \w+ (?:su|per)|should i use|devo usare|dovrei usare|"
    # A question about the world that names a file only as an example: "should package-lock.json be
    # committed?", «il file .env va caricato su github?», "can a .exe file run on a Mac?".
    r"should (?:i|we|you|it|they|\S+ be)\b|is it (?:safe|normal|risky|ok|okay|dangerous|bad|wise|possible|true)|"
    r"e vero che|^meglio\b|what is it\s*\??$|what(?:'s| is) that\s*\??$|cos'e\s*\??$|"
    r"e (?:normale|rischioso|pericoloso|sicuro|grave)|(?:is|are) \S+ (?:better|safer|worse) than|"
    r"can an? \S+(?: file)? (?:run|be|open)|in general|in generale|what even is|a che serve|"
    r"va (?:caricato|messo|committato|incluso)|how often should|ogni quanto|"
    r"why (?:do|does|is|are|would|did)|perche (?:a volte|mai|si|non)|non eseguirlo|don't run it|"
    r"mi spieghi (?:la|il|lo|cosa|come)|what time zone|"
    r"(?:come|cosa|quale|quali) (?:\w+ ){0,2}\w+(?:eresti|aresti|iresti)"
    r"|^(?:what is|what's|whats|cos'e|cos e|che cos'e|cosa e)\s+(?:an? |the |il |lo |la |l')?\S+\s*\??$"
)
TO_WRITE = re.compile(
    r"\b(?:write|create|make|give|show|code|scrivi|scrivere|scrivimi|crea|creami|fammi|dammi)\b(?: \w+){0,2} "
    r"(?:an?|uno|una|un)\s*$"
)
# A piece of code asked for, to be shown: "give me a bash one-liner to …", «scrivimi una funzione che …».
CODE_REQUEST = whole(
    r"(?:write|give|show|make|create|scrivi|scrivimi|dammi|fammi|mostrami|creami|preparami)(?: me| mi)?"
    r" (?:an?|uno|una|un|the|il|lo|la) (?:\w+ ){0,2}(?:script|command|one-?liner|regex|regular expression|"
    r"function|snippet|program|query|comando|funzione|espressione regolare|alias)s?"
)
CODE_FILE = re.compile(r"\.(?:py|sh|bash|js|ts|rb|go|rs|sql|ps1|bat|java|c|cpp|php|pl|r)$", re.IGNORECASE)
