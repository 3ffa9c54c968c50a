"""English queries and headings that carry foreign loanwords, names and phrases: the texts a
translator must leave alone (searched as typed, the translation at most added beside them).

``items()`` are the foreign words, phrases and names, each with the language it comes from and an
English note about it (its title and a few sentences), so a profile can hold the note each query
should find. ``texts()`` puts each item into English query and heading templates: well over
2,000 texts, in a fixed order. The issue's own examples are among them ("piña colada recipe",
"a la carte menu prices", a Portuguese query ending "banco de dados", "Geburtstag meiner Mutter").
Used by ``translate_check.py --loanwords``.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Item:
    """A foreign word, phrase or name used in English, and the note that is about it."""

    text: str
    origin: str
    """Where it comes from: es, fr, de, it, pt, la, ja, name, place…"""
    kind: str
    """food, culture, phrase, person, place, thing."""
    about: str
    """A sentence about it, in English, for its note."""


_FOOD = [
    ("piña colada", "es", "A cocktail of rum, coconut cream and pineapple juice, blended with ice."),
    ("jalapeño poppers", "es", "Halved chili peppers stuffed with cheese, breaded and baked."),
    ("quesadilla", "es", "A tortilla folded over melted cheese and grilled until crisp."),
    ("chile con carne", "es", "A spicy stew of minced beef, beans, tomatoes and chili."),
    ("paella valenciana", "es", "Rice cooked with saffron, chicken, rabbit and green beans in a wide pan."),
    ("tortilla española", "es", "A thick omelette of eggs, potatoes and onion, served in wedges."),
    ("gazpacho", "es", "A cold soup of tomatoes, cucumber, peppers, garlic and olive oil."),
    ("churros con chocolate", "es", "Fried dough sticks dipped in thick hot chocolate."),
    ("pico de gallo", "es", "A fresh salsa of chopped tomato, onion, cilantro and lime."),
    ("dulce de leche", "es", "Milk and sugar cooked slowly until thick and caramel brown."),
    ("huevos rancheros", "es", "Fried eggs on tortillas with a warm tomato and chili sauce."),
    ("sangría", "es", "Red wine punch with chopped fruit, orange juice and brandy."),
    ("crème brûlée", "fr", "A baked custard under a layer of caramelised sugar."),
    ("pain au chocolat", "fr", "A croissant-dough pastry with two bars of dark chocolate inside."),
    ("coq au vin", "fr", "Chicken braised slowly in red wine with mushrooms and bacon."),
    ("bœuf bourguignon", "fr", "A beef stew braised in red Burgundy wine with onions."),
    ("soupe à l'oignon", "fr", "Onion soup topped with toasted bread and melted cheese."),
    ("ratatouille", "fr", "Stewed aubergine, courgette, peppers and tomato with herbs."),
    ("tarte tatin", "fr", "An upside-down apple tart baked with caramel."),
    ("quiche lorraine", "fr", "A savoury tart of eggs, cream and bacon."),
    ("café au lait", "fr", "Coffee with hot milk in equal parts."),
    ("crêpes suzette", "fr", "Thin pancakes in a sauce of butter, sugar and orange liqueur."),
    ("hors d'oeuvre", "fr", "Small savoury dishes served before the main meal."),
    ("pâté de campagne", "fr", "A coarse country terrine of pork and liver."),
    ("Apfelstrudel", "de", "Thin pastry rolled around spiced apples and raisins."),
    ("Schwarzwälder Kirschtorte", "de", "Black Forest cake of chocolate sponge, cherries and cream."),
    ("Sauerbraten", "de", "A pot roast marinated for days in vinegar and spices."),
    ("Brezel mit Butter", "de", "A soft pretzel split and spread with butter."),
    ("Kartoffelsalat", "de", "Potato salad dressed with vinegar, broth and onions."),
    ("Wiener Schnitzel", "de", "A thin breaded veal cutlet fried in butter."),
    ("Spätzle", "de", "Soft egg noodles scraped into boiling water."),
    ("Lebkuchen", "de", "Spiced honey biscuits baked for the winter holidays."),
    ("spaghetti alla carbonara", "it", "Pasta with eggs, pecorino, guanciale and black pepper."),
    ("risotto ai funghi", "it", "Creamy rice cooked slowly with mushrooms and parmesan."),
    ("tiramisù", "it", "Layers of coffee-soaked biscuits and mascarpone cream."),
    ("pasta al dente", "it", "Pasta cooked until firm to the bite."),
    ("pollo alla cacciatora", "it", "Chicken stewed with tomatoes, olives and rosemary."),
    ("feijoada", "pt", "A stew of black beans with pork and beef, served with rice."),
    ("pão de queijo", "pt", "Small chewy cheese breads made with tapioca flour."),
    ("pastel de nata", "pt", "A custard tart in flaky pastry, dusted with cinnamon."),
    ("caipirinha", "pt", "A cocktail of cachaça, sugar and lime."),
]
_CULTURE = [
    ("a la carte", "fr", "Dishes ordered one by one from the menu, each with its own price."),
    ("prix fixe", "fr", "A set menu of several courses at one price."),
    ("déjà vu", "fr", "The feeling of having lived the present moment before."),
    ("raison d'être", "fr", "The reason something exists."),
    ("coup d'état", "fr", "The sudden seizure of a government by force."),
    ("fait accompli", "fr", "Something already done before those affected hear of it."),
    ("joie de vivre", "fr", "A cheerful enjoyment of life."),
    ("savoir-faire", "fr", "The knack of knowing what to do in any situation."),
    ("tête-à-tête", "fr", "A private conversation between two people."),
    ("laissez-faire", "fr", "Letting things take their own course, without interfering."),
    ("cause célèbre", "fr", "An issue that attracts great public attention."),
    ("femme fatale", "fr", "An attractive and dangerous woman of fiction."),
    ("art nouveau", "fr", "A decorative style of flowing lines from around 1900."),
    ("film noir", "fr", "Dark crime films of the 1940s and 1950s."),
    ("nom de plume", "fr", "A name a writer publishes under."),
    ("bon voyage party", "fr", "A farewell gathering before a long trip."),
    ("fiesta", "es", "A party or festival with music and dancing."),
    ("siesta", "es", "A short nap after lunch."),
    ("plaza mayor", "es", "The main square of a Spanish town."),
    ("mañana", "es", "Tomorrow, or some unspecified later time."),
    ("aficionado", "es", "An enthusiast who knows a lot about a subject."),
    ("hasta la vista", "es", "A casual goodbye."),
    ("Día de los Muertos", "es", "The Mexican holiday remembering the dead."),
    ("flamenco", "es", "Spanish dance and guitar music of Andalusia."),
    ("Zeitgeist", "de", "The spirit of an age."),
    ("Schadenfreude", "de", "Pleasure taken in someone else's misfortune."),
    ("Wanderlust", "de", "A strong desire to travel."),
    ("Kindergarten", "de", "A school for young children before primary school."),
    ("Doppelgänger", "de", "A double of a living person."),
    ("Angst", "de", "A feeling of deep anxiety."),
    ("Gesundheit", "de", "Said to someone who has just sneezed."),
    ("Oktoberfest", "de", "The beer festival held in Munich every autumn."),
    ("Weltanschauung", "de", "A comprehensive view of the world."),
    ("Bildungsroman", "de", "A novel about a young person's growth."),
    ("Realpolitik", "de", "Politics based on practical rather than moral goals."),
    ("Gemütlichkeit", "de", "Warmth, friendliness and good cheer."),
    ("Sturm und Drang", "de", "A German literary movement of emotional intensity."),
    ("dolce vita", "it", "A life of pleasure and luxury."),
    ("a cappella", "it", "Singing without instruments."),
    ("prima donna", "it", "The lead female singer of an opera."),
    ("bella figura", "it", "Making a good impression."),
    ("saudade", "pt", "A deep longing for someone or something absent."),
    ("bossa nova", "pt", "A gentle style of Brazilian music."),
    ("carpe diem", "la", "Seize the day."),
    ("ad hoc", "la", "Made for one particular purpose."),
    ("per se", "la", "By itself; intrinsically."),
    ("status quo", "la", "The existing state of affairs."),
    ("bona fide", "la", "Genuine, real."),
    ("quid pro quo", "la", "A favour given in return for something."),
    ("in vitro", "la", "Taking place in a test tube."),
    ("vice versa", "la", "The other way round."),
    ("karaoke", "ja", "Singing along to recorded music."),
    ("tsunami", "ja", "A large sea wave caused by an earthquake."),
    ("haiku", "ja", "A short poem of three lines."),
    ("origami", "ja", "The art of folding paper."),
    ("feng shui", "zh", "Arranging rooms to bring harmony."),
]
_NAMES = [
    ("José García", "name", "A colleague from the Madrid office."),
    ("María Fernández", "name", "The architect of the new library."),
    ("Pedro Almodóvar", "name", "A Spanish film director."),
    ("Gabriel García Márquez", "name", "The author of One Hundred Years of Solitude."),
    ("Frida Kahlo", "name", "A Mexican painter known for self-portraits."),
    ("Penélope Cruz", "name", "A Spanish actress."),
    ("Antonio Gaudí", "name", "The architect of the Sagrada Família."),
    ("François Truffaut", "name", "A director of the French New Wave."),
    ("Amélie Poulain", "name", "The heroine of a 2001 film set in Montmartre."),
    ("Émile Zola", "name", "A French novelist."),
    ("Hélène Dubois", "name", "The new head of the design team."),
    ("Jean-Luc Godard", "name", "A French-Swiss film director."),
    ("Jürgen Habermas", "name", "A German philosopher."),
    ("Günter Grass", "name", "The author of The Tin Drum."),
    ("Angela Merkel", "name", "A former German chancellor."),
    ("Jürgen Klopp", "name", "A football manager."),
    ("Ludwig van Beethoven", "name", "A composer of nine symphonies."),
    ("Wolfgang Amadeus Mozart", "name", "A composer from Salzburg."),
    ("Erwin Schrödinger", "name", "A physicist famous for a thought experiment with a cat."),
    ("Kurt Gödel", "name", "A logician known for the incompleteness theorems."),
    ("Antonín Dvořák", "name", "A Czech composer."),
    ("Paul Erdős", "name", "A prolific mathematician."),
    ("Søren Kierkegaard", "name", "A Danish philosopher."),
    ("Björk Guðmundsdóttir", "name", "An Icelandic singer."),
    ("Leonardo da Vinci", "name", "The painter of the Mona Lisa."),
    ("Luciano Pavarotti", "name", "An Italian tenor."),
    ("João Gilberto", "name", "A Brazilian singer and guitarist."),
    ("Caetano Veloso", "name", "A Brazilian songwriter."),
    ("Hayao Miyazaki", "name", "A Japanese animator."),
    ("Señor Martínez", "name", "Our landlord."),
    ("Doña Rosa", "name", "The owner of the bakery downstairs."),
    ("Herr Müller", "name", "The German teacher."),
    ("Frau Schmidt", "name", "The neighbour on the second floor."),
    ("Madame Lefèvre", "name", "The French tutor."),
]
_PLACES = [
    ("São Paulo", "place", "The largest city of Brazil."),
    ("Rio de Janeiro", "place", "A Brazilian city known for its beaches."),
    ("Buenos Aires", "place", "The capital of Argentina."),
    ("Ciudad de México", "place", "The capital of Mexico."),
    ("Los Ángeles", "place", "A city in California."),
    ("San Sebastián", "place", "A seaside city in the Basque Country."),
    ("Córdoba", "place", "A city in Andalusia with a great mosque."),
    ("Málaga", "place", "A port city on the Costa del Sol."),
    ("Montréal", "place", "A city in Québec."),
    ("Québec City", "place", "The capital of the province of Québec."),
    ("Champs-Élysées", "place", "An avenue in Paris."),
    ("Côte d'Azur", "place", "The French Riviera."),
    ("Saint-Émilion", "place", "A wine village near Bordeaux."),
    ("Zürich", "place", "The largest city of Switzerland."),
    ("München", "place", "The capital of Bavaria."),
    ("Düsseldorf", "place", "A city on the Rhine."),
    ("Köln", "place", "A city with a great cathedral."),
    ("Neuschwanstein", "place", "A castle in the Bavarian Alps."),
    ("Unter den Linden", "place", "A boulevard in Berlin."),
    ("Baden-Württemberg", "place", "A state in south-west Germany."),
    ("Firenze", "place", "Florence, a city in Tuscany."),
    ("Lisboa", "place", "The capital of Portugal."),
    ("Reykjavík", "place", "The capital of Iceland."),
    ("Kraków", "place", "A city in southern Poland."),
]
_THINGS = [
    ("Volkswagen Käfer", "de", "The Beetle, a small car made for decades."),
    ("Bundesliga", "de", "The top German football league."),
    ("Autobahn", "de", "A German motorway."),
    ("Über", "de", "A ride-hailing app and a German word for over."),
    ("Hochdeutsch", "de", "Standard German."),
    ("Fahrvergnügen", "de", "The joy of driving, from an old car advert."),
    ("Zugspitze", "de", "The highest mountain of Germany."),
    ("El Niño", "es", "A warming of the Pacific that changes the weather."),
    ("La Niña", "es", "A cooling of the Pacific that changes the weather."),
    ("Real Madrid", "es", "A football club."),
    ("Guardia Civil", "es", "A Spanish police force."),
    ("Camino de Santiago", "es", "A pilgrimage route to Santiago de Compostela."),
    ("Tour de France", "fr", "A three-week cycling race."),
    ("Légion d'honneur", "fr", "The highest French order of merit."),
    ("Académie française", "fr", "The council for the French language."),
    ("Le Monde", "fr", "A French daily newspaper."),
    ("Cirque du Soleil", "fr", "A circus company from Montréal."),
    ("Vespa", "it", "An Italian scooter."),
    ("La Scala", "it", "An opera house in Milan."),
    ("Carnaval do Rio", "pt", "The carnival of Rio de Janeiro."),
]
_PHRASES_FOREIGN = [
    # Whole phrases in a language noted translates or does not, as people type them into English
    # notebooks: the translation may be added, but the typed words must still find their note.
    ("Geburtstag meiner Mutter", "de", "Ideas and plans for my mother's birthday party."),
    ("Frohe Weihnachten", "de", "Christmas greetings to the family in Germany."),
    ("Feliz cumpleaños", "es", "Birthday wishes for a friend in Spain."),
    ("Joyeux anniversaire", "fr", "Birthday wishes for a friend in Lyon."),
    ("criar um banco de dados", "pt", "How to create a database, for the Brazilian team."),
    ("configurar o banco de dados", "pt", "Setting up the database, for the Brazilian team."),
    ("backup do banco de dados", "pt", "Backing up the database, for the Lisbon office."),
    ("obrigado pela ajuda", "pt", "A thank-you note to the team in Porto."),
    ("buon appetito", "it", "What Italians say before a meal."),
    ("grazie mille", "it", "A thank-you card for the hosts in Rome."),
    ("bon appétit", "fr", "What the French say before a meal."),
    ("c'est la vie", "fr", "Such is life."),
    ("je ne sais quoi", "fr", "A quality that is hard to describe."),
    ("que sera sera", "es", "Whatever will be, will be."),
    ("mi casa es su casa", "es", "My house is your house."),
    ("vamos a la playa", "es", "A summer song about going to the beach."),
]


def items() -> list[Item]:
    """Every item, in a fixed order."""
    out = [Item(t, o, "food", a) for t, o, a in _FOOD]
    out += [Item(t, o, "culture", a) for t, o, a in _CULTURE]
    out += [Item(t, o, "person", a) for t, o, a in _NAMES]
    out += [Item(t, o, "place", a) for t, o, a in _PLACES]
    out += [Item(t, o, "thing", a) for t, o, a in _THINGS]
    out += [Item(t, o, "phrase", a) for t, o, a in _PHRASES_FOREIGN]
    return out


TEMPLATES: dict[str, tuple[str, ...]] = {
    "food": (
        "{} recipe",
        "how to make {}",
        "{} ingredients",
        "best {} in town",
        "{} for six people",
        "shopping list for {}",
        "{} calories",
        "notes on {}",
        "# {}",
        "## Making {} at home",
        "vegetarian {}",
        "{} with friends on Friday",
    ),
    "culture": (
        "{}",
        "what does {} mean",
        "{} in English",
        "notes on {}",
        "examples of {}",
        "# {}",
        "## On {}",
        "the history of {}",
        "{} explained",
        "essay about {}",
        "quotes about {}",
        "{} and its meaning",
    ),
    "person": (
        "{}",
        "meeting with {}",
        "notes from the call with {}",
        "{}'s phone number",
        "email to {}",
        "# {}",
        "## Lunch with {}",
        "books by {}",
        "{} birthday",
        "ask {} about the contract",
        "{} biography",
        "gift ideas for {}",
    ),
    "place": (
        "{}",
        "trip to {}",
        "hotels in {}",
        "flights to {}",
        "# {}",
        "## Three days in {}",
        "restaurants in {}",
        "weather in {} in May",
        "{} itinerary",
        "what to see in {}",
        "train from {} to the airport",
        "museums in {}",
    ),
    "thing": (
        "{}",
        "notes on {}",
        "# {}",
        "## About {}",
        "history of {}",
        "{} facts",
        "{} tickets",
        "{} schedule",
        "news about {}",
        "{} explained",
        "photos of {}",
        "{} prices",
    ),
    "phrase": (
        "{}",
        "# {}",
        "notes about {}",
        "{} ideas",
        "## {}",
        "{} list",
        "draft {}",
        "{} plans",
        "{} (todo)",
        "more on {}",
        "{} checklist",
        "{} reminder",
    ),
}

EXAMPLES = (
    "piña colada recipe",
    "a la carte menu prices",
    "Geburtstag meiner Mutter",
    "criar um banco de dados",
)
"""The issue's own examples, each also a text of ``texts()``."""


def texts() -> list[tuple[str, Item]]:
    """Every text with the item it is about: each item in each of its kind's templates."""
    out = [(template.format(item.text), item) for item in items() for template in TEMPLATES[item.kind]]
    extra = {"a la carte menu prices": "a la carte"}
    by_text = {item.text: item for item in items()}
    out += [(text, by_text[name]) for text, name in extra.items()]
    return out


def note_for(item: Item) -> tuple[str, str]:
    """The title and body of the note that is about ``item``."""
    return item.text, f"# {item.text}\n\n{item.about}\n\nMore about {item.text} to come.\n"
