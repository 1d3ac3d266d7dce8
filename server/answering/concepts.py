"""What a briefing is about, in both languages: words that name the same subject, grouped.

The static embedding sees that "prize" is near "award" in English; it barely sees that "prêmio" is
too, or that "mora" and "based" ask the same thing. These groups are the subjects members' briefings
are made of (what they do, tools, languages, availability, where, history, study, clients, partners,
refusals, ...), each a set of English and Brazilian Portuguese words (folded, stemmed when matched).
A word in a group adds the group as a term both to a note and to a question, so BM25 ranks a note
that speaks of the same subject in other words, or in the other language. The groups are a
vocabulary of subjects, not of questions: none names a member, a note or a phrasing.
"""

from __future__ import annotations

GROUPS: dict[str, str] = {
    "occupation": "trade oficio role funcao specialist architect writer photographer fotografo fotografa analyst "
    "analista profissional profession profissao occupation ocupacao career carreira living designer "
    "engineer engenheiro engenheira developer desenvolvedor desenvolvedora programmer programador "
    "programadora translator translation tradutor tradutora interpreter interprete consultant "
    "consultora consultor",
    "software": "suite plugin plugins autocad blender premiere lightroom excel notion jira software programs "
    "programas aplicativo app apps tool tools ferramenta ferramentas adobe indesign illustrator figma "
    "photoshop canva memoq trados sketch",
    "computer": "computer computador laptop notebook thinkpad mac macbook linux windows fedora ubuntu os editor "
    "neovim vim vscode emacs ide setup",
    "coding": "programming programo programa programar code coding codigo python golang rust java javascript "
    "typescript ruby kotlin linguagem linguagens stack",
    "speaking": "bilingual bilingue multilingual accent sotaque japanese japones chinese chines mandarin arabic arabe "
    "russian russo dutch holandes speak speaks fala falar falo idioma idiomas lingua linguas tongue "
    "tongues english ingles french frances portuguese portugues spanish espanhol german alemao hindi "
    "italian italiano fluent fluente natively nativo nativa conversational conversar chat",
    "replies": "contact contato reach reachable whatsapp slack inbox back reply replies respond responde responder "
    "respondo resposta answer answers retorno retorna demora quick quickly fast rapido message messages "
    "mensagem mensagens email",
    "weekend": "weekend weekends saturday sabado sunday domingo fins",
    "hours": "morning manha afternoon tarde expediente business comercial hours horario hour hora horas night noite "
    "evening working uteis weekday weekdays",
    "location": "neighborhood bairro hometown moram moved mudou relocate live lives mora morar moro vive vivo based "
    "city cidade reside town zone fuso timezone located",
    "workplace": "office escritorio studio estudio home casa remote remoto",
    "before": "previous anterior earlier past history historia background trajetoria before antes previously former "
    "formerly employed emprego empregada empregado fixo employer trabalhava trabalhei worked",
    "independent": "independent independente autonoma autonomo freelance freelancer freelancing own",
    "recognition": "renowned highlight destaque portfolio acclaimed honor honra trophy trofeu famous famosa famoso "
    "known conhecido conhecida prize prizes premio premios award awards premiado premiada won ganhou "
    "recognition reconhecimento notable talks",
    "clients": "clientele clientela segment segmento sector setor industry industries industria market mercado client "
    "clients cliente clientes customer customers companies empresa empresas brands marcas publishers "
    "editoras",
    "nonprofit": "nonprofit nonprofits ngo ngos ong ongs charity charities humanitarian cross cruz",
    "study": "education educacao qualification qualificacao bachelor bacharel licenciatura mba study studied estudou "
    "estudar degree graduated formada formado formacao faculdade university universidade college masters "
    "mestrado phd doutorado graduacao academic academically trained school escola abroad",
    "teaching": "teacher instructor instrutor mentor mentoria mentoring workshop workshops oficina oficinas lecture "
    "lectures teach teaches teaching ensina ensinar professor professora aula aulas lessons classes curso "
    "course students alunos",
    "partners": "colleague colega colleagues colegas associate socio socia subcontract terceiriza outsourcing network "
    "collaborators colaboradores partner partners parceira parceiro parceria colaborador colaboradora "
    "collaborate colabora dupla pair together junto bring refer indica indicar recommend recomenda alone "
    "sozinha sozinho",
    "illustration": "illustration illustrator illustrations ilustracao ilustracoes ilustrar ilustradora ilustrador "
    "desenhos desenho drawing draw pictures imagens",
    "refusal": "refuse refuses recusa recusar avoid avoids evita evito decline declines turn turns down won't wont "
    "pega pego reject ethics etica not nao never nunca don doesn won",
    "vice": "tobacco cigarro cigarette cigarettes tabaco betting apostas aposta casino cassino gambling weapons armas "
    "arma crypto bitcoin cripto trading ads anuncio anuncios tracking rastreamento",
    "files": "deliverables entregaveis assets vector vetorial svg psd indd files arquivos arquivo source editable "
    "editaveis abertos originals originais manual guide guidelines pdf handover",
    "printing": "print printed printing impressao impresso grafica printer printers proof proofs prova provas paper "
    "papel colours colors cores",
    "support": "warranty garantia aftercare hotfix patch incident incidente plantao support suporte bug bugs fix "
    "fixes corrige correcao correcoes breaks quebra problema problemas maintenance manutencao launch",
    "speaking_events": "talk talks palestra palestras presentation apresentou apresentacao conference conferences "
    "conferencia speaker spoken keynote",
    "open_source": "open source aberto github library libraries biblioteca bibliotecas stars estrelas maintain "
    "maintains mantenho mantem publish published package",
    "testing": "qa unit coverage cobertura ci test tests testing teste testes automated automatizado automatizados "
    "review reviews revisa revisao quality",
    "cloud": "devops docker containers deploy hosting hospedagem servidor servers cloud nuvem aws amazon azure gcp "
    "certification certificado certificacao certified terraform infrastructure infra kubernetes",
    "database": "storage armazenamento nosql mongodb redis sqlite oracle warehouse bigquery snowflake database "
    "databases banco postgres postgresql mysql clickhouse sql columnar analytics",
    "sworn": "sworn juramentada juramentado official oficial cartorio court tribunal notarized certified",
    "fields": "specialise specialize specialty specialties especialidade especialidades especializa area areas field "
    "fields subjects assuntos medical medico medica laudo laudos doctor legal juridico juridica contratos "
    "law literature literatura novel novels ficcao fiction",
    "pace": "turnaround volume capacity capacidade words palavras daily diario speed velocidade ritmo pace output "
    "produtividade throughput",
    "monthly": "month monthly mes mensal cap limit maximo simultaneous simultanea simultaneas prepare preparo "
    "preparar ready",
    "equipment": "hardware webcam audio headphones gear equipment equipamento equipamentos headset fone microphone "
    "mic microfone phone telefone distancia",
    "booth": "booth cabine",
    "confidential": "private privado gdpr lgpd protecao confidential confidentiality confidencialidade nda sigilo "
    "privacy privacidade delete apaga apago keep guarda guardo retention secret secreto",
    "leisure": "hobby hobbies passatempo passatempos free vagas lazer leisure sing canta cantar choir coral garden "
    "horta jardim",
    "travel": "exterior international internacional presencial deslocamento travel travels viaja viajar viajo fly "
    "voar trip trips country pais",
    "meetings": "videocall chamada encontro meet meeting meetings reuniao reunioes call calls ligacao videochamada",
    "process": "workflow fluxo method metodo metodologia approach abordagem stages fases phase onboarding discovery "
    "start starts begin begins comeca comecar going kickoff brief briefing drafts draft rascunho rascunhos "
    "sketch sketches esboco rounds rodadas revisions process processo steps etapas",
    "interface": "frontend front interface interfaces ui ux telas tela screens visual",
    "logo": "logo logos logotipo emblem simbolo symbol",
}
