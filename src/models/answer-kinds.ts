/**
 * What kind of answer a question asks for, and whether a sentence gives that kind: "how much"
 * asks for a price, "how long" for a duration, "how far" for a distance, "when" for a time,
 * "what is your phone number" for a way to reach the shop, "can I" for what one can or cannot do,
 * "how do I" for where to go. A help-center sentence that answers such a question states the
 * figure (the permission, the address); one that only shares the question's words describes the
 * topic ("Choose gift wrapping at checkout" beside "Gift wrapping costs 4 EUR").
 *
 * The cues of a question are data, one list a language (the languages the offline responder is
 * measured in, and their close neighbours); a question is read with every language's cues, since
 * they seldom collide. What a sentence states is read from figures with units and symbols:
 * digits of every script are folded before (wordsOf), currency symbols and codes are
 * international, and the units are data like the cues; what one can do is read from modal
 * phrases ("you can", "nicht möglich"), data like the cues, and where to go from addresses and
 * menu paths, which need none.
 */

export type AnswerKind = 'price' | 'duration' | 'distance' | 'time' | 'count' | 'contact' | 'possibility' | 'instruction';

/** Question cues per language, lower case, matched as whole words (or, for Chinese and Japanese, as they stand). */
const QUESTION_CUES: Readonly<Record<AnswerKind, readonly RegExp[]>> = {
  price: [
    // en
    /\b(?:how much|what does (?:it|that|this|\w+) cost|cost|costs|price|prices|pricing|fee|fees|charge|charges|expensive|cheap|cheaper)\b/u,
    // de
    /(?:^|[^\p{L}])(?:wie ?viel|was kostet|kostet|kosten|preis|preise|gebühr|gebühren|gebuehr|teuer|günstig|guenstig)(?![\p{L}])/u,
    // es, fr, it, pt, nl
    /(?:^|[^\p{L}])(?:cuánto cuesta|cuanto cuesta|cuesta|precio|coste|costo|combien|coûte|prix|frais|quanto costa|prezzo|quanto custa|preço|wat kost|kost|prijs)(?![\p{L}])/u,
    // zh, ja
    /多少钱|价格|費用|费用|价钱|いくら|料金/u,
  ],
  duration: [
    // "When will it arrive?" is answered with a duration as often as with a date.
    /\b(?:how long|how many (?:days|hours|weeks|months|years)|how soon|how quickly|how fast|when)\b/u,
    /(?:^|[^\p{L}])(?:wie lange?|dauer|dauert|wie schnell|wie viele (?:tage|stunden|wochen|monate|jahre)|wann)(?![\p{L}])/u,
    /(?:^|[^\p{L}])(?:cuánto tiempo|cuanto tiempo|cuánto tarda|cuándo|combien de temps|quand|quanto tempo|hoe lang|wanneer)(?![\p{L}])/u,
    /多久|多长时间|几天|什么时候|どのくらい|何日|いつ/u,
  ],
  distance: [
    /\b(?:how far)\b/u,
    /(?:^|[^\p{L}])(?:wie weit|reichweite)(?![\p{L}])/u,
    /(?:^|[^\p{L}])(?:qué distancia|autonomía|quelle distance|autonomie|hoe ver)(?![\p{L}])/u,
    /多远|续航|航続/u,
  ],
  time: [
    /\b(?:when|what time|opening hours|open|opened)\b/u,
    /(?:^|[^\p{L}])(?:wann|uhrzeit|öffnungszeiten|oeffnungszeiten|geöffnet|geoeffnet|offen)(?![\p{L}])/u,
    /(?:^|[^\p{L}])(?:cuándo|horario|abierto|quand|horaires|ouvert|quando|aperto|wanneer|open)(?![\p{L}])/u,
    /什么时候|几点|营业时间|いつ|営業時間/u,
  ],
  count: [
    /\b(?:how many|what percentage|how old|what year|which year)\b/u,
    /(?:^|[^\p{L}])(?:wie viele|wieviele|wie alt|welche[mn]? jahr)(?![\p{L}])/u,
    /(?:^|[^\p{L}])(?:cuántos|cuántas|cuantos|cuantas|qué año|combien de|quel âge|quelle année|quanti|quante|hoeveel)(?![\p{L}])/u,
    /多少|几|何人|何年/u,
  ],
  // "Can I …?" is answered by what one can or cannot do ("You can return anything within 30 days").
  possibility: [
    /\b(?:can i|can we|can you|could i|could you|may i|is it possible|am i able|are you able)\b/u,
    /(?:^|[^\p{L}])(?:kann ich|kann man|könnt ihr|koennt ihr|können sie|koennen sie|darf ich|geht das|ist es möglich|ist es moeglich)(?![\p{L}])/u,
    /(?:^|[^\p{L}])(?:puedo|se puede|pueden|puis-je|je peux|pouvez-vous|peut-on|posso|potete|si può|kan ik|kunnen jullie|mag ik|podem|é possível)(?![\p{L}])/u,
    /可以|能不能|能否|できますか/u,
  ],
  // "How do I …?", "Where can I …?" is answered by where to go or what to choose.
  instruction: [
    /\b(?:how do i|how can i|how to|where do i|where can i|what should i do|what do i do|what now)\b/u,
    /(?:^|[^\p{L}])(?:wie kann ich|wie mache ich|wie geht|wo finde ich|wo kann ich|was muss ich tun|was soll ich tun|was tun|was jetzt|was mache ich)(?![\p{L}])/u,
    /(?:^|[^\p{L}])(?:cómo puedo|cómo hago|dónde puedo|qué hago|comment faire|comment puis-je|où puis-je|que faire|come posso|dove posso|cosa devo fare|hoe kan ik|waar kan ik|wat moet ik doen|como posso|onde posso)(?![\p{L}])/u,
    /怎么办|如何|在哪里可以|どうやって|どうすれば/u,
  ],
  contact: [
    /\b(?:phone|telephone|number to call|call you|email address|e-mail address|reach you|contact you)\b/u,
    /(?:^|[^\p{L}])(?:telefon|telefonnummer|nummer|anrufen|e-mail-adresse|mailadresse|erreichen)(?![\p{L}])/u,
    /(?:^|[^\p{L}])(?:teléfono|telefono|correo|téléphone|numéro|telefoonnummer)(?![\p{L}])/u,
    /电话|邮箱|電話/u,
  ],
};

/** A number as help centers write one: digits (folded to ASCII), or a Chinese or Japanese numeral. */
const NUMBER = String.raw`(?:\d[\d.,]*|[一二两三四五六七八九十百千]+)`;
/** Currency symbols and codes, in any language's help center. */
const CURRENCY = String.raw`(?:€|\$|£|¥|₹|₩|eur|euros?|usd|dollars?|gbp|chf|franken|francs?|pounds?|yuan|元|円|kr|sek|nok|dkk|pln|zł)`;
/** Units of time, per language (lower case). */
const TIME_UNITS = [
  'seconds?|minutes?|mins?|hours?|hrs?|days?|working days?|business days?|weeks?|months?|years?',
  'sekunden?|minuten?|stunden?|tagen?|tage|tag|werktagen?|werktage|wochen?|monaten?|monate|monat|jahren?|jahre|jahr',
  'segundos?|minutos?|horas?|días?|dias?|semanas?|meses|mes|años?|secondes?|heures?|jours?|semaines?|mois|ans|années?|ore|giorni|settimane|mesi|anni|uur|dagen|weken|maanden|jaar',
  '秒|分钟|小时|个?工作日|天|日|周|星期|个?月|年|時間|週間|か月|ヶ月',
].join('|');
/** A unit ends where a word of a spaced script would go on ("5 days", not "5 dayside"); Chinese and Japanese run on. */
const UNIT_END = String.raw`(?![\p{Script=Latin}\p{Script=Cyrillic}\p{Script=Greek}])`;
const DISTANCE_UNITS = 'km|kilometers?|kilometres?|kilometern?|miles?|mi|meters?|metres?|metern?|m|公里|千米|キロ';

/** What a sentence states, read from its text after the word folding of wordsOf (NFKC, lower case, ASCII digits). */
const STATES: Readonly<Record<AnswerKind, RegExp>> = {
  price: new RegExp(String.raw`${NUMBER}\s*${CURRENCY}${UNIT_END}|(?:€|\$|£|¥)\s*\d|(?:^|[^\p{L}])(?:free of charge|kostenlos|gratis|gratuit|免费)(?![\p{L}])`, 'u'),
  duration: new RegExp(String.raw`${NUMBER}(?:\s*[–-]\s*${NUMBER})?(?:\s*|-)(?:${TIME_UNITS})${UNIT_END}`, 'u'),
  distance: new RegExp(String.raw`${NUMBER}(?:\s*[–-]\s*${NUMBER})?\s*(?:${DISTANCE_UNITS})${UNIT_END}`, 'u'),
  time: /\d{1,2}[:.]\d{2}|\d{1,2}\s*(?:am|pm|uhr|h)(?![\p{L}])|(?:^|[^\p{L}])(?:monday|tuesday|wednesday|thursday|friday|saturday|sunday|montag|dienstag|mittwoch|donnerstag|freitag|samstag|sonntag|lunes|sábado|domingo|lundi|samedi|dimanche)(?![\p{L}])|[周星期][一二三四五六日天]/u,
  count: new RegExp(String.raw`(?:^|[^\p{L}\d])${NUMBER}`, 'u'),
  possibility: /\b(?:you|we) (?:can|cannot|can't|may|are able)\b|\bcannot\b|\bnot possible\b|(?:^|[^\p{L}])(?:du kannst|kannst du|wir können|können wir|kann man|nicht möglich|ist möglich|puedes|podemos|no es posible|vous pouvez|nous pouvons|pas possible|puoi|possiamo|non è possibile|je kunt|u kunt|we kunnen|niet mogelijk|você pode|não é possível)(?![\p{L}])|可以|不能|无法|できます|できません/u,
  // Where to go: a web address with a path, a menu path ("Account > Orders"), an e-mail address. Not any quoted
  // text: help centers quote names ("Final sale") as often as buttons.
  instruction: /[\p{L}\d-]+\.[a-z]{2,}\/\S*|\S\s+>\s+\S|[^\s@]+@[^\s@]+\.[a-z]{2,}/u,
  contact: /\+?\d[\d\s()/-]{6,}\d|[^\s@]+@[^\s@]+\.[a-z]{2,}/u,
};

const fold = (text: string) => text.normalize('NFKC').toLowerCase();


/** The kinds of answer a question asks for (empty when its wording names none). */
export function askedKinds(question: string): Set<AnswerKind> {
  const text = fold(question);
  const kinds = new Set<AnswerKind>();
  for (const [kind, cues] of Object.entries(QUESTION_CUES) as [AnswerKind, readonly RegExp[]][]) {
    if (cues.some((cue) => cue.test(text))) kinds.add(kind);
  }
  return kinds;
}

/** Whether a sentence (folded as wordsOf folds: digits as ASCII) states an answer of this kind. */
export function statesKind(sentence: string, kind: AnswerKind): boolean {
  return STATES[kind].test(fold(sentence));
}
